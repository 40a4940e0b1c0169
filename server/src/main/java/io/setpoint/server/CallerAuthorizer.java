package io.setpoint.server;

import com.linecorp.armeria.server.ServiceRequestContext;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import io.setpoint.resource.AclHooks.Authorizer;
import java.util.function.BiFunction;
import javax.net.ssl.SSLSession;

/**
 * Makes the {@link Authorizer} of each gRPC call available to the services through the call's
 * {@link Context}. It is resolved from the call's metadata (its token) or its TLS session (a
 * client certificate) when a service first asks for it, not before: calls that need no identity
 * (ACL bootstrap, server reflection) never resolve it, so they work without a token. A call that reaches a service without this
 * interceptor is denied everything.
 */
final class CallerAuthorizer implements ServerInterceptor {
  private static final Context.Key<Caller> KEY = Context.key("setpoint-caller");
  private static final Caller NOBODY =
      new Caller((headers, tls) -> (permission, type, tenancy, name) -> false, new Metadata(), null);

  private final BiFunction<Metadata, SSLSession, Authorizer> resolver;

  /**
   * @param resolver builds the caller's authorizer from the call's metadata and its TLS session
   *     (null over plaintext or in-process); throws a {@link StatusRuntimeException} ({@code
   *     UNAUTHENTICATED}) for a missing or unknown token
   */
  public CallerAuthorizer(BiFunction<Metadata, SSLSession, Authorizer> resolver) {
    this.resolver = resolver;
  }

  /** Every call may do everything: ACLs disabled, or the agent's own in-process identity. */
  public static CallerAuthorizer allowAll() {
    Authorizer all = Authorizer.allowAll();
    return new CallerAuthorizer((headers, tls) -> all);
  }

  /**
   * The authorizer of the current call.
   *
   * @throws StatusRuntimeException {@code UNAUTHENTICATED} when the call's token is missing or
   *     unknown and ACLs are on
   */
  public static Authorizer current() {
    Caller caller = KEY.get();
    return (caller == null ? NOBODY : caller).authorizer();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    // Armeria has the call's request context current here; the in-process transport has none.
    ServiceRequestContext request = ServiceRequestContext.currentOrNull();
    SSLSession tls = request == null ? null : request.sslSession();
    Context context = Context.current().withValue(KEY, new Caller(resolver, headers, tls));
    return Contexts.interceptCall(context, call, headers, next);
  }

  /** Resolves once, on first use; a failure is thrown again on every use. */
  private static final class Caller {
    private final BiFunction<Metadata, SSLSession, Authorizer> resolver;
    private final Metadata headers;
    private final SSLSession tls;
    private Authorizer resolved;
    private StatusRuntimeException failure;

    Caller(BiFunction<Metadata, SSLSession, Authorizer> resolver, Metadata headers, SSLSession tls) {
      this.resolver = resolver;
      this.headers = headers;
      this.tls = tls;
    }

    synchronized Authorizer authorizer() {
      if (resolved == null && failure == null) {
        try {
          resolved = resolver.apply(headers, tls);
        } catch (StatusRuntimeException e) {
          failure = e;
        }
      }
      if (failure != null) {
        throw failure;
      }
      return resolved;
    }
  }
}
