package io.setpoint.cli;

import java.time.Instant;

/** Reads the creation time out of a ULID (its first 48 bits are milliseconds since the epoch). */
final class Ulids {
  private static final String ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

  private Ulids() {}

  /** When {@code ulid} was minted, or null when it is not a ULID. */
  static Instant instant(String ulid) {
    if (ulid.length() != 26) {
      return null;
    }
    long millis = 0;
    for (int i = 0; i < 10; i++) {
      int digit = ALPHABET.indexOf(Character.toUpperCase(ulid.charAt(i)));
      if (digit < 0) {
        return null;
      }
      millis = (millis << 5) | digit;
    }
    return millis >>> 48 != 0 ? null : Instant.ofEpochMilli(millis);
  }
}
