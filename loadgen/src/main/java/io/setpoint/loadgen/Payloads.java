package io.setpoint.loadgen;

import java.nio.charset.StandardCharsets;

/** Values of a fixed size that differ from write to write. */
final class Payloads {
  /** The digits of the sequence number at the start of every value. */
  static final int MIN_LENGTH = 20;

  private Payloads() {}

  /** {@code length} ASCII characters: {@code seq} as 20 digits, then filler. */
  static String text(long seq, int length) {
    if (length < MIN_LENGTH) {
      throw new IllegalArgumentException("length must be at least " + MIN_LENGTH + ", was " + length);
    }
    StringBuilder out = new StringBuilder(length);
    String digits = Long.toString(Math.abs(seq));
    out.repeat('0', MIN_LENGTH - digits.length()).append(digits);
    for (int i = MIN_LENGTH; i < length; i++) {
      out.append((char) ('a' + i % 26));
    }
    return out.toString();
  }

  static byte[] bytes(long seq, int length) {
    return text(seq, length).getBytes(StandardCharsets.US_ASCII);
  }
}
