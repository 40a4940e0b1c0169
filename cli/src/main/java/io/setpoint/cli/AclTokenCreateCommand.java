package io.setpoint.cli;

import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.CreateTokenResponse;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code setpoint acl token create -policy NAME}: creates a token and prints its secret once. */
@Command(name = "create", description = {
    "Creates a token with the given policies (or a management token) and prints its secret (shown only once).",
    "Needs a token with operator:write (-token or SETPOINT_TOKEN). The policies must exist."})
final class AclTokenCreateCommand extends ResourceCall {
  @Option(names = "-policy", paramLabel = "NAME", description = "An acl.v1.Policy the token gets; repeat for several.")
  private List<String> policies = new ArrayList<>();

  @Option(names = "-management", description = "A management token: may do everything.")
  private boolean management;

  @Option(names = "-identity", paramLabel = "ID", description = {
      "A client certificate identity that acts as this token over mutual TLS: a SPIFFE ID",
      "(spiffe://example.org/team-a/ci) or a subject (CN=alice,O=Team A); repeat for several."})
  private List<String> identities = new ArrayList<>();

  @Option(names = "-name", paramLabel = "NAME", defaultValue = "",
      description = "The token's name (not secret); default: a generated one.")
  private String name;

  @Option(names = "-description", paramLabel = "TEXT", defaultValue = "", description = "For people.")
  private String description;

  @Mixin private SecretOutput output;

  @Override
  int run() {
    if (policies.isEmpty() && !management) {
      throw new ParameterException(spec.commandLine(), "give -policy NAME (repeat for several) or -management");
    }
    CreateTokenResponse response = client.createToken(CreateTokenRequest.newBuilder()
        .setName(name)
        .addAllPolicies(policies)
        .setManagement(management)
        .setDescription(description)
        .addAllIdentities(identities)
        .build());
    output.print(out(), err(), response.getSecret(), response.getToken());
    return 0;
  }
}
