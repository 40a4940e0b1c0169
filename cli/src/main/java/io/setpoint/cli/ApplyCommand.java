package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code setpoint resource apply -f FILE}: creates or updates the resources a file describes. */
@Command(name = "apply", description = {
    "Creates or updates resources from a JSON or YAML file (or stdin with -f -).",
    "The file may hold several documents (YAML ---, or a JSON array); all are checked",
    "before any is written. Each document:",
    "  {\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"miles\", \"tenancy\": {...}},",
    "   \"metadata\": {...}, \"data\": {\"name\": \"Miles Davis\"}}",
    "A \"version\" makes the write a compare-and-swap.",
    "With -dry-run the server admits each resource (defaults, validation, access) and stores nothing:",
    "what would be created or updated is printed, and the first resource it refuses fails with the reason."})
final class ApplyCommand extends FileCall {
  @Option(names = {"-dry-run", "--dry-run"},
      description = "Admit the resources on the server (its mutate and validate hooks, ACLs) without storing any.")
  private boolean dryRun;

  @Override
  int run() {
    if (dryRun) {
      return dryRun();
    }
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

  private int dryRun() {
    for (Resource resource : resources()) {
      Resource before = current(resource);
      Resource admitted = client.mutateAndValidate(resource);
      String outcome = before == null ? "would create"
          : sameContent(before, admitted) ? "would leave unchanged" : "would update";
      out().println(outcome + " " + Ids.format(Ids.withoutUid(admitted.getId())) + " (dry run: nothing stored)");
      out().flush();
    }
    return 0;
  }

  /** Whether writing {@code admitted} over {@code stored} would store nothing new. */
  private static boolean sameContent(Resource stored, Resource admitted) {
    return stored.getData().equals(admitted.getData()) && stored.getMetadataMap().equals(admitted.getMetadataMap())
        && stored.getOwner().equals(admitted.getOwner());
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
