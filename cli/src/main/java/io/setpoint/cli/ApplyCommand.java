package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import picocli.CommandLine.Command;

/** {@code setpoint resource apply -f FILE}: creates or updates the resources a file describes. */
@Command(name = "apply", description = {
    "Creates or updates resources from a JSON or YAML file (or stdin with -f -).",
    "The file may hold several documents (YAML ---, or a JSON array); all are checked",
    "before any is written. Each document:",
    "  {\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"miles\", \"tenancy\": {...}},",
    "   \"metadata\": {...}, \"data\": {\"name\": \"Miles Davis\"}}",
    "A \"version\" makes the write a compare-and-swap."})
final class ApplyCommand extends FileCall {
  @Override
  int run() {
    for (Resource resource : resources()) {
      Resource before = current(resource);
      Resource stored = client.write(resource);
      String outcome = before == null ? "created"
          : before.getVersion().equals(stored.getVersion()) ? "unchanged" : "updated";
      out().println(outcome + " " + Ids.format(Ids.withoutUid(stored.getId())) + " (version " + stored.getVersion() + ")");
      out().flush();
    }
    return 0;
  }

  /** The stored resource the write will replace, or null; only to tell created from updated. */
  private Resource current(Resource resource) {
    try {
      return client.readConsistent(resource.getId());
    } catch (SetpointException e) {
      if (e.code() == Status.Code.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }
}
