package io.setpoint.server;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import io.setpoint.resource.AclHooks.Authorizer;
import java.util.function.Function;

/**
 * Makes the {@link Authorizer} of each gRPC call available to the services through the call's
 * {@link Context}. It is resolved from the call's metadata (its token) when a service first asks
 * for it, not before: calls that need no identity (ACL bootstrap, server reflection) never
 * resolve it, so they work without a token. A call that reaches a service without this
 * interceptor is denied everything.
 */
final class CallerAuthorizer implements ServerInterceptor {
  private static final Context.Key<Caller> KEY = Context.key("setpoint-caller");
  private static final Caller NOBODY = new Caller(headers -> (permission, type, tenancy, name) -> false, new Metadata());

  private final Function<Metadata, Authorizer> resolver;

  /**
   * @param resolver builds the caller's authorizer from the call's metadata; throws a {@link
   *     StatusRuntimeException} ({@code UNAUTHENTICATED}) for a missing or unknown token
   */
  public CallerAuthorizer(Function<Metadata, Authorizer> resolver) {
    this.resolver = resolver;
  }

  /** Every call may do everything: ACLs disabled, or the agent's own in-process identity. */
  public static CallerAuthorizer allowAll() {
    Authorizer all = Authorizer.allowAll();
    return new CallerAuthorizer(headers -> all);
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
    Context context = Context.current().withValue(KEY, new Caller(resolver, headers));
    return Contexts.interceptCall(context, call, headers, next);
  }

  /** Resolves once, on first use; a failure is thrown again on every use. */
  private static final class Caller {
    private final Function<Metadata, Authorizer> resolver;
    private final Metadata headers;
    private Authorizer resolved;
    private StatusRuntimeException failure;

    Caller(Function<Metadata, Authorizer> resolver, Metadata headers) {
      this.resolver = resolver;
      this.headers = headers;
    }

    synchronized Authorizer authorizer() {
      if (resolved == null && failure == null) {
        try {
          resolved = resolver.apply(headers);
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
