package io.setpoint.testkit;

import io.setpoint.api.tls.TlsFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for TLS tests: makes a CA and issues certificates (EC P-256,
 * valid for a day), written as PEM files into a directory. Needs {@code
 * org.bouncycastle:bcpkix-jdk18on} on the test classpath.
 *
 * <pre>{@code
 * TestCertificates ca = TestCertificates.create(tempDir);
 * TlsFiles server = ca.issue("server", "localhost", "127.0.0.1");  // a server/client cert with SANs
 * TlsFiles client = ca.issue("client");                            // a client cert
 * TlsFiles rogue = TestCertificates.create(tempDir.resolve("other")).issue("rogue"); // untrusted
 * }</pre>
 *
 * Every issued certificate may serve both ends (server and client auth), so the same files work
 * for an API port and for Raft peers.
 */
public final class TestCertificates {
  private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime());

  private final Path dir;
  private final KeyPair caKeys;
  private final X509Certificate caCertificate;
  private final Path caFile;

  private TestCertificates(Path dir, KeyPair caKeys, X509Certificate caCertificate, Path caFile) {
    this.dir = dir;
    this.caKeys = caKeys;
    this.caCertificate = caCertificate;
    this.caFile = caFile;
  }

  /** A new CA, its certificate written to {@code dir/ca.pem} (the directory is created). */
  public static TestCertificates create(Path dir) {
    try {
      Files.createDirectories(dir);
      KeyPair keys = newKeyPair();
      X500Name name = new X500Name("CN=Setpoint Test CA " + SERIALS.incrementAndGet());
      X509v3CertificateBuilder builder = certificateBuilder(name, name, keys);
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate certificate = sign(builder, keys);
      Path caFile = dir.resolve("ca.pem");
      writePem(caFile, "CERTIFICATE", certificate.getEncoded());
      return new TestCertificates(dir, keys, certificate, caFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The CA's certificate, PEM. */
  public Path caFile() {
    return caFile;
  }

  /** The CA's certificate. */
  public X509Certificate caCertificate() {
    return caCertificate;
  }

  /**
   * Issues a certificate for {@code name} (its CN), with the given DNS names and IP addresses as
   * subject alternative names, usable for server and client auth; writes {@code dir/name.pem} and
   * {@code dir/name-key.pem} (PKCS#8). The returned files trust this CA ({@link
   * TlsFiles#trustedCa()}).
   */
  public TlsFiles issue(String name, String... subjectAltNames) {
    return issueWithSubject(name, "CN=" + name, subjectAltNames);
  }

  /**
   * Like {@link #issue}, with {@code subject} as the distinguished name, its RDNs in certificate
   * order ({@code O=Team B,CN=alice}, which RFC 4514 and the JDK write {@code CN=alice,O=Team B});
   * a subject alternative name with {@code ://} (such as {@code spiffe://example.org/ci}) is a URI.
   */
  public TlsFiles issueWithSubject(String name, String subject, String... subjectAltNames) {
    try {
      KeyPair keys = newKeyPair();
      X509v3CertificateBuilder builder =
          certificateBuilder(
              new X500Name(caCertificate.getSubjectX500Principal().getName()), new X500Name(subject), keys);
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      builder.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCertificate));
      if (subjectAltNames.length > 0) {
        List<GeneralName> names = new ArrayList<>();
        for (String san : subjectAltNames) {
          if (san.contains("://")) {
            names.add(new GeneralName(GeneralName.uniformResourceIdentifier, san));
          } else {
            names.add(isIp(san) ? new GeneralName(GeneralName.iPAddress, san) : new GeneralName(GeneralName.dNSName, san));
          }
        }
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      X509Certificate certificate = sign(builder, caKeys);
      Path certFile = dir.resolve(name + ".pem");
      Path keyFile = dir.resolve(name + "-key.pem");
      writePem(certFile, "CERTIFICATE", certificate.getEncoded());
      writePem(keyFile, "PRIVATE KEY", keys.getPrivate().getEncoded());
      return new TlsFiles(certFile, keyFile, caFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code der} as one PEM block with {@code label} (e.g. {@code CERTIFICATE}) to {@code file}. */
  public static void writePem(Path file, String label, byte[] der) throws IOException {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    Files.writeString(file, "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n",
        StandardCharsets.US_ASCII);
  }

  private static X509v3CertificateBuilder certificateBuilder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIALS.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(1))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static boolean isIp(String name) {
    if (!name.matches("[0-9.]+") && !name.contains(":")) {
      return false;
    }
    try {
      InetAddress.getByName(name);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
