package io.setpoint.api.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The PEM files of one TLS endpoint: its certificate (chain), its private key and, for mutual
 * TLS, the CA that the other side's certificate must be signed by.
 *
 * <pre>{@code
 * TlsFiles api = TlsFiles.of(Path.of("server.pem"), Path.of("server-key.pem"));       // TLS
 * TlsFiles mutual = api.withTrustedCa(Path.of("ca.pem"));                             // mutual TLS
 * }</pre>
 *
 * @param certificate the certificate chain, leaf first, PEM
 * @param privateKey the leaf certificate's unencrypted private key, PEM (PKCS#8, or PKCS#1 for RSA)
 * @param trustedCa the CA certificates, PEM, that peers must present a certificate signed by; null
 *     when peers need no certificate
 */
public record TlsFiles(Path certificate, Path privateKey, Path trustedCa) {

  public TlsFiles {
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  /** A certificate and its key, without client authentication. */
  public static TlsFiles of(Path certificate, Path privateKey) {
    return new TlsFiles(certificate, privateKey, null);
  }

  /**
   * The certificates in the PEM file {@code file}, in file order (for a chain: the leaf first),
   * such as the CAs a client trusts without presenting a certificate of its own.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or holds no valid
   *     certificate
   */
  public static List<X509Certificate> certificates(Path file) {
    return Pem.certificates(file);
  }

  /** These files, requiring peers to present a certificate signed by the CA in {@code ca}. */
  public TlsFiles withTrustedCa(Path ca) {
    return new TlsFiles(certificate, privateKey, Objects.requireNonNull(ca, "ca"));
  }

  /** Whether peers must present a certificate ({@link #trustedCa()} is set). */
  public boolean mutual() {
    return trustedCa != null;
  }

  /**
   * Reads and checks the files: the certificate parses and is currently valid, the key parses and
   * belongs to it, the CA file holds certificates.
   *
   * @throws IllegalArgumentException naming the file at fault
   */
  public Loaded load() {
    List<X509Certificate> chain = Pem.certificates(certificate);
    try {
      chain.get(0).checkValidity();
    } catch (CertificateExpiredException | CertificateNotYetValidException e) {
      throw new IllegalArgumentException(certificate + ": the certificate is not valid now (valid "
          + chain.get(0).getNotBefore().toInstant() + " to " + chain.get(0).getNotAfter().toInstant() + ")", e);
    }
    PrivateKey key = Pem.privateKey(privateKey);
    Pem.checkPair(chain.get(0), key, certificate, privateKey);
    List<X509Certificate> trusted = trustedCa == null ? List.of() : Pem.certificates(trustedCa);
    return new Loaded(key, chain, trusted);
  }

  /**
   * The contents of {@link TlsFiles}, read and checked.
   *
   * @param key the private key
   * @param chain the certificate chain, leaf first
   * @param trusted the CA certificates peers' certificates must chain to; empty when peers need none
   */
  public record Loaded(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> trusted) {
    public Loaded {
      Objects.requireNonNull(key, "key");
      chain = List.copyOf(chain);
      trusted = List.copyOf(trusted);
    }

    /** The chain as an array, as TLS builders take it. */
    public X509Certificate[] chainArray() {
      return chain.toArray(X509Certificate[]::new);
    }

    /** The trusted CAs as an array, as TLS builders take them. */
    public X509Certificate[] trustedArray() {
      return trusted.toArray(X509Certificate[]::new);
    }

    /** A JSSE key manager factory over the key and chain, for transports that take one. */
    public KeyManagerFactory keyManagerFactory() {
      try {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        char[] password = new char[0];
        store.setKeyEntry("key", key, password, chainArray());
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        return factory;
      } catch (GeneralSecurityException | java.io.IOException e) {
        throw new IllegalStateException("cannot build a key manager: " + e.getMessage(), e);
      }
    }

    /**
     * A JSSE trust manager factory trusting exactly the {@linkplain #trusted() CAs}.
     *
     * @throws IllegalStateException when there are none
     */
    public TrustManagerFactory trustManagerFactory() {
      if (trusted.isEmpty()) {
        throw new IllegalStateException("no trusted CA was given");
      }
      try {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < trusted.size(); i++) {
          store.setCertificateEntry("ca-" + i, trusted.get(i));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
      } catch (GeneralSecurityException | java.io.IOException e) {
        throw new IllegalStateException("cannot build a trust manager: " + e.getMessage(), e);
      }
    }
  }
}
