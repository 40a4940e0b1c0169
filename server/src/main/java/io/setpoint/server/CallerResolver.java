package io.setpoint.server;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.RequestHeaders;
import io.setpoint.resource.AclHooks.Authorizer;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * Resolves the {@link Authorizer} of an HTTP request from its headers (its bearer token) or its
 * client certificate: the HTTP counterpart of the
 * gRPC {@code CallerAuthorizer}. Every route of the {@link HttpGateway} asks it once per request
 * and passes the result to the same {@code ResourceHandler} methods the gRPC service calls.
 *
 * <p>A resolver that rejects the request (an unknown or expired token) throws a
 * {@code StatusRuntimeException} with {@code UNAUTHENTICATED}; the gateway answers it with 401
 * like any other failure.
 */
@FunctionalInterface
interface CallerResolver {
  /**
   * The authorizer of the caller that sent {@code headers} over {@code tls} (null over plaintext),
   * whose client certificate may identify it.
   */
  Authorizer resolve(RequestHeaders headers, SSLSession tls);

  /** Every request may do everything: ACLs disabled. */
  static CallerResolver allowAll() {
    Authorizer all = Authorizer.allowAll();
    return (headers, tls) -> all;
  }

  /** The token of an {@code Authorization: Bearer <token>} header, if the request has one. */
  static Optional<String> bearerToken(RequestHeaders headers) {
    String value = headers.get(HttpHeaderNames.AUTHORIZATION);
    if (value == null || value.length() < 7 || !value.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String token = value.substring(7).trim();
    return token.isEmpty() ? Optional.empty() : Optional.of(token);
  }
}
