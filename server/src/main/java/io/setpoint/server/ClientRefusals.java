package io.setpoint.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Function;

/**
 * Who a request comes from, and the answer that refuses it, for the agent's per-client limits
 * ({@link RequestRateLimiter}, {@link WatchLimiter}). A client is its ACL token when the request
 * carries one the agent knows, else its address, so made-up tokens buy nothing of their own.
 */
final class ClientRefusals {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ClientRefusals() {}

  static boolean isGrpc(RequestHeaders headers) {
    MediaType type = headers.contentType();
    return type != null && type.subtype().startsWith("grpc");
  }

  /** The request's known token (gRPC metadata or a bearer header) as {@code tokenKeys} names it, else its address. */
  static String client(ServiceRequestContext ctx, RequestHeaders headers, Function<String, Optional<String>> tokenKeys) {
    String grpcToken = headers.get(AccessControl.TOKEN_METADATA);
    Optional<String> token = grpcToken != null ? Optional.of(grpcToken) : CallerResolver.bearerToken(headers);
    Optional<String> known = token.flatMap(tokenKeys);
    if (known.isPresent()) {
      return "token:" + known.get();
    }
    return ctx.remoteAddress() instanceof InetSocketAddress socket ? "address:" + socket.getAddress().getHostAddress() : "address:?";
  }

  /**
   * {@code RESOURCE_EXHAUSTED} with {@code message}: a trailers-only gRPC answer, or 429 with a JSON
   * error body; with a {@code Retry-After} of {@code retryAfterSeconds} when that is positive.
   */
  static HttpResponse exhausted(RequestHeaders headers, String message, long retryAfterSeconds) {
    if (isGrpc(headers)) {
      ResponseHeadersBuilder grpc = ResponseHeaders.builder(HttpStatus.OK)
          .contentType(headers.contentType())
          .add("grpc-status", "8") // RESOURCE_EXHAUSTED
          .add("grpc-message", URLEncoder.encode(message, StandardCharsets.UTF_8).replace("+", "%20"));
      if (retryAfterSeconds > 0) {
        grpc.add(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds));
      }
      // Trailers-only: the status in the one HEADERS frame that ends the stream, as gRPC expects
      // of a call refused before any message.
      return HttpResponse.of(grpc.endOfStream(true).build());
    }
    ResponseHeadersBuilder http = ResponseHeaders.builder(HttpStatus.TOO_MANY_REQUESTS).contentType(MediaType.JSON_UTF_8);
    if (retryAfterSeconds > 0) {
      http.add(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds));
    }
    try {
      return HttpResponse.of(http.build(), HttpData.ofUtf8(
          JSON.writeValueAsString(JSON.createObjectNode().put("code", "RESOURCE_EXHAUSTED").put("message", message))));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an object of two strings always encodes", e);
    }
  }
}
