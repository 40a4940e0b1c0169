package io.setpoint.server;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.Violations;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The pages of a ListByOwner: an owner's children in the order of their formatted ids, each page
 * after the last child of the one before. The token names the owner's incarnation and that last
 * child, so a token is good for one owner only, and a child deleted meanwhile costs no page.
 */
final class OwnedPages {
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
  private static final Comparator<Resource> ORDER = Comparator.comparing(r -> key(r.getId()));

  /** One page, and the last child on it when more may follow (null on the last page). */
  record Page(List<Resource> resources, ID last) {}

  private OwnedPages() {}

  /** The page of {@code children} after the child keyed {@code after} (from the start when empty). */
  static Page page(List<Resource> children, String after, int pageSize) {
    List<Resource> rest = children.stream().filter(r -> after.isEmpty() || key(r.getId()).compareTo(after) > 0)
        .sorted(ORDER).toList();
    if (rest.size() <= pageSize) {
      return new Page(rest, null);
    }
    List<Resource> page = rest.subList(0, pageSize);
    return new Page(page, page.get(pageSize - 1).getId());
  }

  /** The token of the page after {@code last}, for {@code owner}'s listing. */
  static String token(ID owner, ID last) {
    return ENCODER.encodeToString((Ids.format(owner) + "\n" + key(last)).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The key a page token of {@code owner} continues after; empty for no token. A token of another
   * owner, or no token at all, is a violation of {@code page_token}.
   */
  static String after(Violations v, String token, ID owner) {
    if (token.isEmpty()) {
      return "";
    }
    String text;
    try {
      text = new String(DECODER.decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      v.add("page_token", "page-token", "is not a page token of ListByOwner");
      return "";
    }
    int newline = text.indexOf('\n');
    if (newline < 0 || !text.substring(0, newline).equals(Ids.format(owner))) {
      v.add("page_token", "page-token", "is not a page token of this owner's listing");
      return "";
    }
    return text.substring(newline + 1);
  }

  private static String key(ID id) {
    return Ids.format(Ids.withoutUid(id));
  }
}
