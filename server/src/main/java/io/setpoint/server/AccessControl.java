package io.setpoint.server;

import io.grpc.BindableService;
import io.grpc.Metadata;
import io.setpoint.resource.AclHooks;
import io.setpoint.storage.Backend;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's access control, on or off: who a caller is (from its token), for gRPC and HTTP, and
 * the {@code AclService} that creates tokens. With ACLs on, every request needs a valid token and
 * is allowed only what the token's policies grant (see docs/security.md); with ACLs off, every
 * request may do everything.
 *
 * <p>The agent's in-process transport, which its own controllers use, does not go through this:
 * code inside the agent's JVM acts with the server's internal identity.
 */
final class AccessControl implements AutoCloseable {
  /** The gRPC metadata key that carries a token's secret. */
  public static final String TOKEN_METADATA = "x-setpoint-token";
  private static final Metadata.Key<String> TOKEN_KEY = Metadata.Key.of(TOKEN_METADATA, Metadata.ASCII_STRING_MARSHALLER);
  private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);
  private static final Logger log = LoggerFactory.getLogger(AccessControl.class);

  private final AclView view;
  private final AclGrpcService service;

  private AccessControl(AclView view, AclGrpcService service) {
    this.view = view;
    this.service = service;
  }

  /**
   * ACLs on: loads the store's tokens and policies into memory, and keeps them current.
   *
   * @throws IllegalStateException when the store does not list them within 30 seconds
   */
  public static AccessControl enabled(Backend backend, ResourceHandler handler, Clock clock) {
    AclView view = AclView.start(backend, SYNC_TIMEOUT);
    log.info("ACLs on: every request needs a token (the first comes from 'setpoint acl bootstrap')");
    return new AccessControl(view, new AclGrpcService(handler, backend, clock, view));
  }

  /** ACLs off: everyone may do everything, and the {@code AclService} refuses to create tokens. */
  public static AccessControl disabled(Backend backend, ResourceHandler handler, Clock clock) {
    return new AccessControl(null, new AclGrpcService(handler, backend, clock, null));
  }

  /** Whether requests are checked. */
  public boolean isEnabled() {
    return view != null;
  }

  /**
   * A name for the holder of the token with {@code secret} (its hash, never the secret), or empty
   * when ACLs are off or no token has that secret.
   */
  public Optional<String> tokenKey(String secret) {
    return view == null || secret == null || secret.isBlank() ? Optional.empty() : view.knownHash(secret.trim());
  }

  /**
   * Resolves each gRPC call's authorizer from its {@value #TOKEN_METADATA} metadata or, without
   * one, from its client certificate.
   */
  public CallerAuthorizer grpcCallers() {
    if (view == null) {
      return CallerAuthorizer.allowAll();
    }
    return new CallerAuthorizer((headers, tls) -> {
      String token = headers.get(TOKEN_KEY);
      return resolve(token == null || token.isBlank() ? Optional.empty() : Optional.of(token.trim()), tls,
          "send a token in " + TOKEN_METADATA + " metadata (setpoint -token, or SETPOINT_TOKEN)");
    });
  }

  /**
   * Resolves each HTTP request's authorizer from its {@code Authorization: Bearer} header or,
   * without one, from its client certificate.
   */
  public CallerResolver httpCallers() {
    if (view == null) {
      return CallerResolver.allowAll();
    }
    return (headers, tls) -> resolve(CallerResolver.bearerToken(headers), tls,
        "send an Authorization: Bearer <token> header");
  }

  /**
   * A secret wins over a certificate: it is chosen per request, a certificate per machine. A
   * certificate counts only when a token lists its identity.
   */
  private AclHooks.Authorizer resolve(Optional<String> secret, SSLSession tls, String howToSend) {
    if (secret.isPresent()) {
      return view.authenticate(secret.get());
    }
    Optional<ClientIdentity> identity = ClientIdentity.of(tls);
    if (identity.isPresent()) {
      return view.authenticate(identity.get());
    }
    throw AclView.unauthenticated("no ACL token: this agent enforces ACLs; " + howToSend);
  }

  /** {@code setpoint.acl.v1.AclService}. */
  public BindableService service() {
    return service;
  }

  /** Stops following the store. */
  @Override
  public void close() {
    if (view != null) {
      view.close();
    }
  }
}
