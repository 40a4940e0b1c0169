package io.setpoint.server;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 for what the gateway decodes itself: paths, query strings and bodies. The lenient
 * decoders it would otherwise use turn what is no UTF-8 into something else: an overlong {@code C0
 * AF} into {@code /} (Jackson), a lone surrogate into {@code ?} once stored, malformed bytes into
 * U+FFFD. Here they are errors, so that what is stored is exactly what the client sent.
 */
final class Utf8 {
  private Utf8() {}

  /** {@code bytes} decoded. @throws IllegalArgumentException saying at which byte they are no UTF-8 */
  static String decode(byte[] bytes) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (result.isError()) {
      throw new IllegalArgumentException("not valid UTF-8 at byte " + in.position()
          + " (an overlong, truncated or surrogate sequence, or a byte UTF-8 never uses)");
    }
    decoder.flush(out);
    return out.flip().toString();
  }

  /**
   * A percent-encoded path segment or query component, decoded; {@code +} stays {@code +}.
   *
   * @throws IllegalArgumentException for a {@code %} not followed by two hex digits, or bytes that
   *     are no UTF-8
   */
  static String percentDecode(String encoded) {
    if (encoded.indexOf('%') < 0) {
      return encoded;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c != '%') {
        bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      int high = i + 2 < encoded.length() ? Character.digit(encoded.charAt(i + 1), 16) : -1;
      int low = high >= 0 ? Character.digit(encoded.charAt(i + 2), 16) : -1;
      if (low < 0) {
        throw new IllegalArgumentException("\"%\" at character " + i + " is not followed by two hex digits");
      }
      bytes.write(high << 4 | low);
      i += 2;
    }
    return decode(bytes.toByteArray());
  }

  /** The index of the first surrogate in {@code text} that is not half of a pair, or -1. */
  static int loneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
