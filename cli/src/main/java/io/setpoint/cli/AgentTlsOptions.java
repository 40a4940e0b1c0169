package io.setpoint.cli;

import io.setpoint.api.tls.TlsFiles;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code setpoint agent}'s TLS flags: the API port's certificate, and mutual TLS between Raft peers. */
final class AgentTlsOptions {
  @Option(names = "-tls-cert", paramLabel = "FILE",
      description = "Serve the API port over TLS only (gRPC, HTTP/JSON, /metrics) with this PEM certificate (chain); needs -tls-key.")
  private Path tlsCert;

  @Option(names = "-tls-key", paramLabel = "FILE",
      description = "The unencrypted PEM private key (PKCS#8, or PKCS#1 for RSA) of -tls-cert.")
  private Path tlsKey;

  @Option(names = "-tls-ca", paramLabel = "FILE",
      description = "With -tls-cert: require every client to present a certificate signed by this PEM CA (mutual TLS).")
  private Path tlsCa;

  @Option(names = "-tls-client-cert-optional",
      description = "With -tls-ca: also accept clients without a certificate (they need a token secret); "
          + "one that presents a certificate must present one the CA signed.")
  private boolean clientCertOptional;

  @Option(names = "-raft-tls-cert", paramLabel = "FILE",
      description = "Talk to Raft peers over mutual TLS with this PEM certificate, which must name this member's -cluster host; "
          + "needs -raft-tls-key and -raft-tls-ca.")
  private Path raftTlsCert;

  @Option(names = "-raft-tls-key", paramLabel = "FILE", description = "The unencrypted PEM private key of -raft-tls-cert.")
  private Path raftTlsKey;

  @Option(names = "-raft-tls-ca", paramLabel = "FILE",
      description = "The PEM CA that signed every peer's -raft-tls-cert; peers with other certificates are refused.")
  private Path raftTlsCa;

  /** What makes these flags unusable together, or with {@code dev}; null when nothing does. */
  String problem(boolean dev) {
    if ((tlsCert == null) != (tlsKey == null)) {
      return "-tls-cert and -tls-key go together: give both (the certificate and its private key) or neither";
    }
    if (clientCertOptional && tlsCa == null) {
      return "-tls-client-cert-optional requires -tls-ca: without a CA no client certificates are asked for";
    }
    if (tlsCa != null && tlsCert == null) {
      return "-tls-ca requires -tls-cert and -tls-key: client certificates are checked only over TLS";
    }
    int raftTlsFiles = (raftTlsCert == null ? 0 : 1) + (raftTlsKey == null ? 0 : 1) + (raftTlsCa == null ? 0 : 1);
    if (raftTlsFiles != 0 && raftTlsFiles != 3) {
      return "-raft-tls-cert, -raft-tls-key and -raft-tls-ca go together: Raft peers use mutual TLS, so give all three or none";
    }
    if (raftTlsFiles == 3 && dev) {
      return "-raft-tls-* needs a durable store (-data-dir): -dev has no Raft peers";
    }
    return null;
  }

  /** The API port's files, or null to serve plain text. */
  TlsFiles api() {
    if (tlsCert == null) {
      return null;
    }
    TlsFiles files = TlsFiles.of(tlsCert, tlsKey);
    return tlsCa == null ? files : files.withTrustedCa(tlsCa);
  }

  /** Whether clients may connect without a certificate although {@code -tls-ca} is given. */
  boolean clientCertificatesOptional() {
    return clientCertOptional;
  }

  /** The Raft peers' files, or null for plain text between peers. */
  TlsFiles raft() {
    return raftTlsCert == null ? null : new TlsFiles(raftTlsCert, raftTlsKey, raftTlsCa);
  }
}
