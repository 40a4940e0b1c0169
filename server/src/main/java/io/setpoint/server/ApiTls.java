package io.setpoint.server;

import com.linecorp.armeria.common.TlsKeyPair;
import com.linecorp.armeria.server.ServerBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.setpoint.api.tls.TlsFiles;
import java.net.InetSocketAddress;

/** Makes the agent's port HTTPS only, with client certificates required when a CA is given. */
final class ApiTls {
  private ApiTls() {}

  static void configure(ServerBuilder server, InetSocketAddress address, TlsFiles.Loaded tls) {
    server.https(address).tls(TlsKeyPair.of(tls.key(), tls.chain()));
    if (!tls.trusted().isEmpty()) {
      server.tlsCustomizer(ssl -> ssl.clientAuth(ClientAuth.REQUIRE).trustManager(tls.trustedArray()));
    }
  }
}
