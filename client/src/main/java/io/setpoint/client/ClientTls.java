package io.setpoint.client;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.setpoint.api.tls.TlsFiles;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;

/** Builds the client's TLS context from PEM files, read and checked by {@link TlsFiles}. */
final class ClientTls {
  private ClientTls() {}

  /**
   * A client context trusting {@code ca} (the JVM's CAs when null) and presenting {@code
   * certificate} with {@code key} when they are not null.
   */
  static SslContext context(Path ca, Path certificate, Path key) {
    SslContextBuilder builder = GrpcSslContexts.forClient();
    if (ca != null) {
      builder.trustManager(TlsFiles.certificates(ca).toArray(X509Certificate[]::new));
    }
    if (certificate != null) {
      TlsFiles.Loaded own = TlsFiles.of(certificate, key).load();
      builder.keyManager(own.key(), own.chainArray());
    }
    try {
      return builder.build();
    } catch (SSLException e) {
      throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
    }
  }
}
