package io.setpoint.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Token secrets: 256 random bits, stored only as their SHA-256.
 *
 * <p>Why no slow hash (bcrypt, scrypt, Argon2): those protect passwords, which people choose and
 * which are guessable, by making each guess expensive. A secret here is 256 bits from a
 * {@link SecureRandom}; nobody can enumerate that space at any speed, so a fast hash loses no
 * protection, and it lets every request be checked with one hash and one map lookup instead of
 * tens of milliseconds of deliberate work. The hash is one-way, so a leaked store (or a backup, or
 * a reader with {@code operator:read}) yields no usable secret.
 */
final class Secrets {
  /** Marks a string as a Setpoint token secret, so scanners and people can recognise one. */
  static final String PREFIX = "spt_";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Secrets() {}

  /** A new secret: {@link #PREFIX} and 32 random bytes in unpadded base64url. */
  static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The lowercase hex SHA-256 of {@code secret}: what a token stores. */
  static String hash(String secret) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha256.digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** True when {@code text} has the form of a stored hash: 64 lowercase hex digits. */
  static boolean isHash(String text) {
    return text.length() == 64 && text.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  }
}
