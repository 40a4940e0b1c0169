package io.setpoint.server;

import com.linecorp.armeria.common.TlsKeyPair;
import com.linecorp.armeria.server.ServerBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.setpoint.api.tls.TlsFiles;
import java.net.InetSocketAddress;

/**
 * Makes the agent's port HTTPS only, with client certificates checked against the CA when one is
 * given: required, or optional (then only a certificate that is presented must be the CA's).
 */
final class ApiTls {
  private ApiTls() {}

  static void configure(ServerBuilder server, InetSocketAddress address, TlsFiles.Loaded tls, boolean optional) {
    server.https(address).tls(TlsKeyPair.of(tls.key(), tls.chain()));
    if (!tls.trusted().isEmpty()) {
      ClientAuth auth = optional ? ClientAuth.OPTIONAL : ClientAuth.REQUIRE;
      server.tlsCustomizer(ssl -> ssl.clientAuth(auth).trustManager(tls.trustedArray()));
    }
  }
}
