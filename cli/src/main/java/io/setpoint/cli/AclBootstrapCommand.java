package io.setpoint.cli;

import io.setpoint.api.acl.v1.BootstrapResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code setpoint acl bootstrap}: creates the first management token. */
@Command(name = "bootstrap", description = {
    "Creates the first management token of an agent with ACLs on, and prints its secret (shown only once).",
    "Needs no token. Works once: afterwards it fails, and more tokens come from 'setpoint acl token create'."})
final class AclBootstrapCommand extends ResourceCall {
  @Mixin private SecretOutput output;

  @Override
  int run() {
    BootstrapResponse response = client.bootstrapAcls();
    output.print(out(), err(), response.getSecret(), response.getToken());
    return 0;
  }
}
