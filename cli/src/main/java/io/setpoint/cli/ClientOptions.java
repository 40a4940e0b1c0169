package io.setpoint.cli;

import io.setpoint.client.SetpointClient;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Where the agent is and who we are: {@code -address}, {@code -token}. */
final class ClientOptions {
  @Option(names = "-address", paramLabel = "HOST:PORT", defaultValue = "${env:SETPOINT_ADDRESS:-localhost:8500}",
      description = "The agent's gRPC address (default: $SETPOINT_ADDRESS, else localhost:8500).")
  private String address;

  @Option(names = "-token", paramLabel = "TOKEN", defaultValue = "${env:SETPOINT_TOKEN}",
      description = "ACL token, sent as x-setpoint-token metadata (default: $SETPOINT_TOKEN).")
  private String token;

  SetpointClient connect(CommandLine cmd) {
    try {
      return SetpointClient.builder().address(address).token(token).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(cmd, "-address: " + e.getMessage());
    }
  }
}
