package io.setpoint.cli;

import io.setpoint.client.SetpointClient;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Where the agent is and who we are: {@code -address}, {@code -token}, and for an agent serving
 * TLS {@code -ca-file}, {@code -client-cert}, {@code -client-key} (Consul's names).
 */
final class ClientOptions {
  @Option(names = "-address", paramLabel = "HOST:PORT", defaultValue = "${env:SETPOINT_ADDRESS:-localhost:8500}",
      description = "The agent's gRPC address; https://HOST:PORT means TLS; several, comma-separated, to use whichever"
          + " member answers (default: $SETPOINT_ADDRESS, else localhost:8500).")
  private String address;

  @Option(names = "-token", paramLabel = "TOKEN", defaultValue = "${env:SETPOINT_TOKEN}",
      description = "ACL token, sent as x-setpoint-token metadata (default: $SETPOINT_TOKEN).")
  private String token;

  @Option(names = "-ca-file", paramLabel = "FILE", defaultValue = "${env:SETPOINT_CACERT}",
      description = "Talk TLS and trust the agent's certificate if this PEM CA signed it (default: $SETPOINT_CACERT).")
  private Path caFile;

  @Option(names = "-client-cert", paramLabel = "FILE", defaultValue = "${env:SETPOINT_CLIENT_CERT}",
      description = "For an agent that requires client certificates (-tls-ca): this PEM certificate; needs -client-key "
          + "(default: $SETPOINT_CLIENT_CERT).")
  private Path clientCert;

  @Option(names = "-client-key", paramLabel = "FILE", defaultValue = "${env:SETPOINT_CLIENT_KEY}",
      description = "The PEM private key of -client-cert (default: $SETPOINT_CLIENT_KEY).")
  private Path clientKey;

  SetpointClient connect(CommandLine cmd) {
    if ((clientCert == null) != (clientKey == null)) {
      throw new ParameterException(cmd,
          "-client-cert and -client-key go together (or SETPOINT_CLIENT_CERT and SETPOINT_CLIENT_KEY): give both or neither");
    }
    try {
      return SetpointClient.builder().address(address).token(token)
          .tls(caFile)
          .clientCertificate(clientCert, clientKey)
          .build();
    } catch (IllegalArgumentException e) {
      String flag = e.getMessage() != null && e.getMessage().startsWith("address") ? "-address" : "-ca-file/-client-cert/-client-key";
      throw new ParameterException(cmd, flag + ": " + e.getMessage());
    }
  }
}
