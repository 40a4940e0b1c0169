package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import picocli.CommandLine.Command;

/** {@code setpoint resource create -f FILE}: creates the resources a file describes, never replacing one. */
@Command(name = "create", description = {
    "Creates resources from a JSON or YAML file (or stdin with -f -), like apply, but only",
    "where the name is free: a resource that exists (even one being deleted) is left",
    "untouched and the command stops there with exit code " + CreateCommand.EXISTS + ".",
    "All documents are checked before any is written; those before a conflict stay created."})
final class CreateCommand extends FileCall {
  /** The exit code when a name is taken, so that scripts can tell it from other failures. */
  static final int EXISTS = 3;

  @Override
  int run() {
    for (Resource resource : resources()) {
      Resource stored;
      try {
        stored = client.create(resource);
      } catch (SetpointException e) {
        if (e.code() != Status.Code.ALREADY_EXISTS) {
          throw e;
        }
        err().println("Error: " + e.description() + System.lineSeparator()
            + "Use 'setpoint resource apply' to update it.");
        err().flush();
        return EXISTS;
      }
      out().println("created " + Ids.format(Ids.withoutUid(stored.getId())) + " (version " + stored.getVersion() + ")");
      out().flush();
    }
    return 0;
  }
}
