package io.setpoint.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.Resource;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * Prints a new token and its secret, which the server shows only once: {@code -secret-only}
 * prints just the secret, for {@code export SETPOINT_TOKEN=$(setpoint acl ... -secret-only)}.
 */
final class SecretOutput {
  @Option(names = "-secret-only", description = "Print only the secret (for scripts).")
  private boolean secretOnly;

  void print(PrintWriter out, PrintWriter err, String secret, Resource token) {
    if (secretOnly) {
      out.println(secret);
      out.flush();
      return;
    }
    Token data;
    try {
      data = token.getData().unpack(Token.class);
    } catch (InvalidProtocolBufferException e) {
      throw new CliException("the server answered with a token that does not decode: " + e.getMessage(), e);
    }
    out.println("Token:       " + token.getId().getName());
    out.println("Management:  " + data.getManagement());
    out.println("Policies:    " + (data.getPoliciesCount() == 0 ? "-" : String.join(", ", data.getPoliciesList())));
    if (data.getIdentitiesCount() > 0) {
      out.println("Identities:  " + String.join(", ", data.getIdentitiesList()));
    }
    out.println("Secret:      " + secret);
    out.flush();
    err.println("The secret is shown only this once: keep it safe, and pass it with -token or SETPOINT_TOKEN.");
    err.flush();
  }
}
