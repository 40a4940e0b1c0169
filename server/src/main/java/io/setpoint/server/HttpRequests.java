package io.setpoint.server;

import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import io.grpc.Status;
import io.setpoint.api.Echo;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.ValidationException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How the HTTP gateway reads the parts of a request every route shares: the path's segments and
 * the type they name, the query string, the method, the body's media type and {@code
 * Last-Event-ID}. Each refusal names the part at fault.
 */
final class HttpRequests {
  private static final String PREFIX = "/api/";
  /** What the first path segments after {@code /api/} are, for errors about them. */
  private static final List<String> SEGMENT_FIELDS = List.of("group", "group_version", "kind", "name");

  private HttpRequests() {}

  /**
   * The decoded path segments after {@code /api/}; %2F within a segment stays in it, {@code +} is
   * a plus.
   *
   * @throws ValidationException naming the segment's field when it does not decode to UTF-8
   */
  static List<String> segments(String path) {
    String rest = path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : "";
    List<String> out = new ArrayList<>();
    for (String segment : rest.split("/", -1)) {
      if (segment.isEmpty()) {
        throw HttpProblem.notFound("no route " + Echo.quote(path) + ": empty path segment; see GET /api/openapi.json");
      }
      try {
        out.add(Utf8.percentDecode(segment));
      } catch (IllegalArgumentException e) {
        int i = out.size();
        String field = i < SEGMENT_FIELDS.size() ? SEGMENT_FIELDS.get(i) : i == 4 ? "path" : "key";
        throw ValidationException.of(field, "utf-8", "path segment " + (i + 1) + " after /api/ is " + e.getMessage());
      }
    }
    return out;
  }

  /** The 404 of a path no route takes. */
  static HttpProblem noRoute(String path) {
    return HttpProblem.notFound("no route " + Echo.quote(path) + "; see GET /api/openapi.json");
  }

  /** The type that {@code segments} (group, version, kind) name, when it is served over HTTP. */
  static Registration<?> servedType(Registry registry, List<String> segments) {
    Type type = Types.of(segments.get(0), segments.get(1), segments.get(2));
    return registry.resolve(type).filter(Registration::http).orElseThrow(() -> HttpProblem.notFound(
        "unknown type " + Echo.bounded(Types.format(type), Echo.MAX_ECHO) + ": this server serves no such type over HTTP; GET /api/types lists those it does"));
  }

  /**
   * Refuses a query string whose parameters do not decode to UTF-8 (Armeria's own decoding
   * replaces such bytes with U+FFFD), naming the parameter.
   */
  static void checkQuery(String query) {
    if (query == null) {
      return;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      try {
        Utf8.percentDecode(name);
        Utf8.percentDecode(eq < 0 ? "" : pair.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw ValidationException.of(Echo.bounded(name, Echo.MAX_ECHO), "utf-8", "query parameter is " + e.getMessage());
      }
    }
  }

  static void only(HttpMethod method, HttpMethod allowed) {
    if (method != allowed) {
      throw methodNotAllowed(method, allowed.name());
    }
  }

  static HttpProblem methodNotAllowed(HttpMethod method, String allowed) {
    return new HttpProblem(HttpStatus.METHOD_NOT_ALLOWED, Status.Code.UNIMPLEMENTED,
        method + " is not allowed here; this route takes " + allowed);
  }

  /** A body, when given a content type, must be JSON in UTF-8. */
  static void checkJson(AggregatedHttpRequest req) {
    MediaType type = req.contentType();
    String given = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
    if (type == null && given != null) {
      throw new HttpProblem(HttpStatus.UNSUPPORTED_MEDIA_TYPE, Status.Code.INVALID_ARGUMENT,
          "Content-Type " + Echo.quote(given) + " is not a media type: send application/json (UTF-8)");
    }
    if (type == null) {
      return;
    }
    boolean json = type.type().equals("application") && (type.subtype().equals("json") || type.subtype().endsWith("+json"));
    if (!json || (type.charset() != null && !type.charset().equals(StandardCharsets.UTF_8))) {
      throw new HttpProblem(HttpStatus.UNSUPPORTED_MEDIA_TYPE, Status.Code.INVALID_ARGUMENT,
          "Content-Type " + type + " is not supported: send application/json (UTF-8)");
    }
  }

  /** The revision in {@code Last-Event-ID}, where a watch resumes; 0 when absent. */
  static long lastEventId(AggregatedHttpRequest req) {
    String value = req.headers().get("last-event-id");
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      return Long.parseUnsignedLong(value.trim());
    } catch (NumberFormatException e) {
      throw ValidationException.of("Last-Event-ID", "revision", Echo.quote(value) + " must be the id of an event of an earlier watch (a store revision)");
    }
  }
}
