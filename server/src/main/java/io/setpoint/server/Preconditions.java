package io.setpoint.server;

import com.linecorp.armeria.common.HttpHeaders;
import io.setpoint.api.Echo;
import io.setpoint.api.v1.Fence;
import io.setpoint.resource.ValidationException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The conditional-request headers of a write: {@code If-None-Match: *} asks for a create-only
 * write, {@code If-Match: VERSION} (the version bare or as an entity tag, {@code "VERSION"}) for a
 * compare-and-swap against that stored version. Any other value is refused, naming the header,
 * rather than ignored: a client that meant a condition must not get an unconditional write. {@code
 * Setpoint-Fence: LEASE/HOLDER/EPOCH} applies a write only while that leader-election lease is
 * held (the {@code fence} of the resource service's requests). {@code Idempotency-Key: ID} on a PUT
 * of a resource makes sending it again safe (the {@code request_id} of a write).
 *
 * @param createOnly {@code If-None-Match: *} was given
 * @param version the version of {@code If-Match}, or empty
 * @param fence the fence of {@code Setpoint-Fence}, or the empty fence
 * @param requestId the value of {@code Idempotency-Key}, or empty
 */
record Preconditions(boolean createOnly, String version, Fence fence, String requestId) {
  static final String IF_MATCH = "If-Match";
  static final String IF_NONE_MATCH = "If-None-Match";
  static final String FENCE = "Setpoint-Fence";
  static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  /** A store revision, as the resource service checks a {@code version}. */
  private static final Pattern VERSION = Pattern.compile("[1-9][0-9]{0,18}");

  /** The preconditions of a PUT of a resource, which takes both headers. */
  static Preconditions ofPut(HttpHeaders headers) {
    return new Preconditions(createOnly(headers), version(headers), fence(headers), requestId(headers));
  }

  /** The value of {@code Idempotency-Key}, or empty. */
  private static String requestId(HttpHeaders headers) {
    String requestId = single(headers, IDEMPOTENCY_KEY);
    if (requestId != null && !Rules.REQUEST_ID.matcher(requestId).matches()) {
      throw ValidationException.of(IDEMPOTENCY_KEY, "request-id",
          Echo.quote(requestId) + " must be at most 128 of [A-Za-z0-9._~:-]");
    }
    return requestId == null ? "" : requestId;
  }

  /**
   * The preconditions of a write that can only replace or delete what is stored (a DELETE, a PUT
   * of a status): {@code If-Match} and {@code Idempotency-Key}, not {@code If-None-Match}.
   */
  static Preconditions ofReplace(HttpHeaders headers, String route) {
    if (single(headers, IF_NONE_MATCH) != null) {
      throw ValidationException.of(IF_NONE_MATCH, "create-only",
          "is taken only by a PUT of a resource (to create it), not by " + route);
    }
    return new Preconditions(false, version(headers), fence(headers), requestId(headers));
  }

  /**
   * The version to act on: that of {@code If-Match} or of the {@code version} parameter (either
   * may be left out), which must agree.
   */
  String version(String fromQuery) {
    if (!version.isEmpty() && !fromQuery.isEmpty() && !version.equals(fromQuery)) {
      throw ValidationException.of(IF_MATCH, "url", Echo.quote(version) + " contradicts version "
          + Echo.quote(fromQuery) + " from the URL; leave one out or make them agree");
    }
    return version.isEmpty() ? fromQuery : version;
  }

  /** Whether a {@code Setpoint-Fence} header was sent. */
  boolean fenced() {
    return !fence.getLease().isEmpty();
  }

  /**
   * {@code LEASE/HOLDER/EPOCH}; the resource service checks each part's rule, this only splits
   * them (a holder may not contain {@code /}).
   */
  private static Fence fence(HttpHeaders headers) {
    String value = single(headers, FENCE);
    if (value == null) {
      return Fence.getDefaultInstance();
    }
    String[] parts = value.split("/", -1);
    if (parts.length != 3 || parts[0].isEmpty() || !parts[2].matches("[1-9][0-9]{0,18}")) {
      throw ValidationException.of(FENCE, "fence", Echo.quote(value)
          + " is not LEASE/HOLDER/EPOCH (the lease's name, its holder and a positive epoch)");
    }
    return Fence.newBuilder().setLease(parts[0]).setHolder(parts[1]).setEpoch(Long.parseLong(parts[2])).build();
  }

  private static boolean createOnly(HttpHeaders headers) {
    String value = single(headers, IF_NONE_MATCH);
    if (value == null) {
      return false;
    }
    if (!value.equals("*")) {
      throw ValidationException.of(IF_NONE_MATCH, "create-only", Echo.quote(value)
          + " is not supported: send If-None-Match: * to create only if the name is free");
    }
    return true;
  }

  private static String version(HttpHeaders headers) {
    String value = single(headers, IF_MATCH);
    if (value == null) {
      return "";
    }
    String tag = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
    if (!VERSION.matcher(tag).matches()) {
      throw ValidationException.of(IF_MATCH, "version", Echo.quote(value)
          + " is not supported: send one version, If-Match: VERSION or If-Match: \"VERSION\""
          + " (a positive decimal number; no *, W/ or lists)");
    }
    return tag;
  }

  /** The header's one value, trimmed; null when absent. */
  private static String single(HttpHeaders headers, String name) {
    List<String> values = headers.getAll(name);
    if (values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw ValidationException.of(name, "single", "is given " + values.size() + " times; send it once");
    }
    return values.get(0).trim();
  }
}
