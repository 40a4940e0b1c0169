package io.setpoint.server.service;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.setpoint.resource.Authorizer;
import java.util.function.Function;

/**
 * Resolves the {@link Authorizer} of each gRPC call from its metadata and makes it available to
 * the service through the call's {@link Context}. A call that reaches the service without one is
 * denied everything.
 */
public final class CallerAuthorizer implements ServerInterceptor {
  private static final Context.Key<Authorizer> KEY = Context.key("setpoint-authorizer");
  private static final Authorizer DENY_ALL = (permission, type, tenancy, name) -> false;

  private final Function<Metadata, Authorizer> resolver;

  /** @param resolver builds the caller's authorizer from the call's metadata (its token) */
  public CallerAuthorizer(Function<Metadata, Authorizer> resolver) {
    this.resolver = resolver;
  }

  /** Every call may do everything: ACLs disabled. */
  public static CallerAuthorizer allowAll() {
    Authorizer all = Authorizer.allowAll();
    return new CallerAuthorizer(headers -> all);
  }

  /** The authorizer of the current call. */
  static Authorizer current() {
    Authorizer authz = KEY.get();
    return authz == null ? DENY_ALL : authz;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Context context = Context.current().withValue(KEY, resolver.apply(headers));
    return Contexts.interceptCall(context, call, headers, next);
  }
}
