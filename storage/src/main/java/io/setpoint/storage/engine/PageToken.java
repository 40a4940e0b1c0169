package io.setpoint.storage.engine;

import io.setpoint.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The continuation of a listing: the revision it reads at and the last key returned. It names the
 * key in clear, so the server seals it before a client sees it (the server's PageTokens).
 */
record PageToken(long revision, String lastKey) {
  String encode() {
    String raw = revision + ":" + lastKey;
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  /** Decodes a token and checks it belongs to a listing of keys starting with {@code prefix}. */
  static PageToken decode(String token, String prefix) {
    try {
      String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      int colon = raw.indexOf(':');
      long revision = Long.parseLong(raw.substring(0, colon));
      String lastKey = raw.substring(colon + 1);
      if (revision < 0 || !lastKey.startsWith(prefix)) {
        throw bad();
      }
      return new PageToken(revision, lastKey);
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw bad();
    }
  }

  private static StorageException bad() {
    return new StorageException(
        StorageException.Reason.BAD_PAGE_TOKEN,
        "page_token was not issued for this listing; pass the next_page_token of the previous page");
  }
}
