package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code setpoint type delete TYPE}: removes a type added with {@code type apply}. */
@Command(name = "delete", description = {
    "Deletes the definition of a type added with 'type apply'; the agent stops serving it.",
    "Refused while resources of the type are stored: delete them first."})
final class TypeDeleteCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Override
  int run() {
    Type deleted = type(type);
    client.delete(Ids.of(Types.TYPE_DEFINITION, Types.definitionName(deleted)));
    out().println(Types.format(deleted) + " deleted");
    return 0;
  }
}
