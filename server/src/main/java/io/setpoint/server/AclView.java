package io.setpoint.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.AclHooks.Permission;
import io.setpoint.resource.Hooks;
import io.setpoint.storage.Backend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Tokens and policies as the store has them, in memory, so that resolving a token costs one
 * SHA-256 and a map lookup, and no store read. The {@link Authorizer}s it hands out answer from the
 * current state on every check: a policy edit applies at once, and a deleted token fails every
 * later check of a request or watch that was already running with it.
 */
final class AclView implements AutoCloseable {
  /** A token as far as authorization cares. */
  record TokenGrant(String name, boolean management, List<String> policies) {}

  private final StoreMirror<Grants> policies;
  private final StoreMirror<TokenGrant> tokens;

  private AclView(Backend backend) {
    this.policies = new StoreMirror<>(backend, AclTypes.POLICY, r -> r.getId().getName(),
        r -> Grants.compile(Hooks.decode(r, Policy.class).data()));
    this.tokens = new StoreMirror<>(backend, AclTypes.TOKEN, r -> Hooks.decode(r, Token.class).data().getSecretHash(),
        r -> {
          Token token = Hooks.decode(r, Token.class).data();
          return new TokenGrant(r.getId().getName(), token.getManagement(), List.copyOf(token.getPoliciesList()));
        });
  }

  /**
   * Starts mirroring the store's tokens and policies and waits for their first snapshot.
   *
   * @throws IllegalStateException when the store does not deliver it within {@code timeout}
   */
  static AclView start(Backend backend, Duration timeout) {
    AclView view = new AclView(backend);
    try {
      if (view.policies.awaitSynced(timeout) && view.tokens.awaitSynced(timeout)) {
        return view;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    view.close();
    throw new IllegalStateException("the store did not list ACL tokens and policies within " + timeout);
  }

  /**
   * The authorizer of whoever holds {@code secret}.
   *
   * @throws StatusRuntimeException {@code UNAUTHENTICATED} when no token has that secret
   */
  Authorizer authenticate(String secret) {
    String hash = Secrets.hash(secret);
    if (tokens.get(hash) == null) {
      throw unauthenticated("unknown ACL token: no token has this secret (it may have been deleted)");
    }
    return (permission, type, tenancy, name) -> allowed(hash, permission, type, name);
  }

  /** The hash of {@code secret} when a token has it: a name for its holder that is not the secret. */
  Optional<String> knownHash(String secret) {
    String hash = Secrets.hash(secret);
    return tokens.get(hash) == null ? Optional.empty() : Optional.of(hash);
  }

  /**
   * Waits until the token with {@code secret}, just stored, is known here, so that its holder can
   * use it at once; false if that took longer than {@code timeout}.
   */
  boolean awaitToken(String secret, Duration timeout) throws InterruptedException {
    return tokens.awaitKey(Secrets.hash(secret), timeout);
  }

  private boolean allowed(String hash, Permission permission, Type type, String name) {
    TokenGrant token = tokens.get(hash);
    if (token == null) {
      throw unauthenticated("the ACL token was deleted");
    }
    if (token.management()) {
      return true;
    }
    for (String policyName : token.policies()) {
      Grants grants = policies.get(policyName);
      if (grants != null && grants.allows(permission, type, name)) {
        return true;
      }
    }
    return false;
  }

  static StatusRuntimeException unauthenticated(String message) {
    return Status.UNAUTHENTICATED.withDescription(message).asRuntimeException();
  }

  @Override
  public void close() {
    policies.close();
    tokens.close();
  }
}
