package io.setpoint.api;

/**
 * Bounds what error messages repeat of a request. A message that copied its input whole would
 * grow with it: a 1 MiB name became a gRPC trailer no client would take. Every echo of input goes
 * through {@link #quote}, and every message or field path through {@link #bounded} before it leaves
 * the server, so an error stays small whatever was sent.
 */
public final class Echo {
  /** The most characters of an input value that an error message repeats. */
  public static final int MAX_ECHO = 100;

  private Echo() {}

  /**
   * {@code value} in double quotes, or its first {@value #MAX_ECHO} characters followed by {@code
   * …} and its length when longer: {@code "aaaa…" (1048576 characters)}.
   */
  public static String quote(String value) {
    if (value.length() <= MAX_ECHO) {
      return "\"" + value + "\"";
    }
    return "\"" + prefix(value, MAX_ECHO) + "…\" (" + value.length() + " characters)";
  }

  /** {@code text}, or its first {@code max} characters, {@code …} and its length when longer. */
  public static String bounded(String text, int max) {
    if (text.length() <= max) {
      return text;
    }
    return prefix(text, max) + "… (" + text.length() + " characters)";
  }

  /** The first {@code n} characters, one fewer when the cut would split a surrogate pair. */
  private static String prefix(String text, int n) {
    int end = Character.isHighSurrogate(text.charAt(n - 1)) ? n - 1 : n;
    return text.substring(0, end);
  }
}
