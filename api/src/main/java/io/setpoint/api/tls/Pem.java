package io.setpoint.api.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads certificates and private keys from PEM files for {@link TlsFiles}, with errors that name
 * the file and say what is wrong. Keys must be unencrypted, in PKCS#8 ({@code BEGIN PRIVATE KEY}:
 * what {@code openssl genpkey} writes) or, for RSA, PKCS#1 ({@code BEGIN RSA PRIVATE KEY}).
 */
final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");

  private Pem() {}

  /**
   * The certificates in {@code file}, in file order (for a chain: the leaf first).
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or holds no valid
   *     certificate
   */
  static List<X509Certificate> certificates(Path file) {
    List<X509Certificate> certificates = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (Block block : blocks(file)) {
        if (block.label().equals("CERTIFICATE")) {
          certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
        }
      }
    } catch (CertificateException e) {
      throw new IllegalArgumentException(file + ": not a valid PEM certificate: " + e.getMessage(), e);
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(file + ": holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return List.copyOf(certificates);
  }

  /**
   * The private key in {@code file}.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read, holds no key, or holds
   *     a key in a form this reader does not take (saying how to convert it)
   */
  static PrivateKey privateKey(Path file) {
    for (Block block : blocks(file)) {
      switch (block.label()) {
        case "PRIVATE KEY" -> {
          return pkcs8(file, block.der());
        }
        case "RSA PRIVATE KEY" -> {
          return pkcs8(file, Der.rsaPkcs1ToPkcs8(block.der()));
        }
        case "ENCRYPTED PRIVATE KEY" -> throw new IllegalArgumentException(
            file + ": the private key is encrypted; give an unencrypted one (openssl pkcs8 -in "
                + file + " -out key.pem)");
        case "EC PRIVATE KEY" -> throw new IllegalArgumentException(
            file + ": an EC key in SEC1 form (BEGIN EC PRIVATE KEY); convert it to PKCS#8 with "
                + "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
        default -> {
          // Not a key (e.g. EC PARAMETERS, a certificate): look further.
        }
      }
    }
    throw new IllegalArgumentException(file + ": holds no PEM private key (-----BEGIN PRIVATE KEY-----)");
  }

  /**
   * Checks that {@code key} belongs to {@code certificate}: signs a random challenge with the key
   * and verifies it with the certificate's public key.
   *
   * @throws IllegalArgumentException naming both files when they do not match
   */
  static void checkPair(X509Certificate certificate, PrivateKey key, Path certFile, Path keyFile) {
    PublicKey publicKey = certificate.getPublicKey();
    boolean matches;
    try {
      if (!publicKey.getAlgorithm().equals(key.getAlgorithm())) {
        matches = false;
      } else {
        String algorithm = switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        byte[] challenge = new byte[32];
        new SecureRandom().nextBytes(challenge);
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(key);
        signer.update(challenge);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(publicKey);
        verifier.update(challenge);
        matches = verifier.verify(signature);
      }
    } catch (GeneralSecurityException e) {
      matches = false;
    }
    if (!matches) {
      throw new IllegalArgumentException(
          "the private key " + keyFile + " does not belong to the certificate " + certFile
              + " (" + certificate.getSubjectX500Principal().getName() + ")");
    }
  }

  private static PrivateKey pkcs8(Path file, byte[] der) {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // Try the next algorithm.
      }
    }
    throw new IllegalArgumentException(file + ": not a valid PKCS#8 private key of a known algorithm (" + KEY_ALGORITHMS + ")");
  }

  private record Block(String label, byte[] der) {}

  private static List<Block> blocks(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(file + ": cannot read the file: " + e, e);
    }
    List<Block> blocks = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      try {
        blocks.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(file + ": a PEM block (" + m.group(1) + ") is not valid base64", e);
      }
    }
    if (blocks.isEmpty()) {
      throw new IllegalArgumentException(file + ": not a PEM file (no -----BEGIN ...----- block)");
    }
    return blocks;
  }
}
