package io.setpoint.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.AclHooks.Permission;
import io.setpoint.resource.Hooks;
import io.setpoint.storage.Backend;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Tokens and policies as the store has them, in memory, so that resolving a token costs one
 * SHA-256 and a map lookup, and no store read. The {@link Authorizer}s it hands out answer from the
 * current state on every check: a policy edit applies at once, and a deleted token fails every
 * later check of a request or watch that was already running with it.
 */
final class AclView implements AutoCloseable {
  /** A token as far as authorization cares; {@code identities} are {@link ClientIdentity#key} keys. */
  record TokenGrant(String name, boolean management, List<String> policies, List<String> identities) {}

  private final StoreMirror<Grants> policies;
  private final IdentityIndex identities = new IdentityIndex();
  private final StoreMirror<TokenGrant> tokens;

  private AclView(Backend backend) {
    this.policies = new StoreMirror<>(backend, AclTypes.POLICY, r -> r.getId().getName(),
        r -> Grants.compile(Hooks.decode(r, Policy.class).data()));
    this.tokens = new StoreMirror<>(backend, AclTypes.TOKEN, r -> Hooks.decode(r, Token.class).data().getSecretHash(),
        r -> {
          Token token = Hooks.decode(r, Token.class).data();
          return new TokenGrant(r.getId().getName(), token.getManagement(), List.copyOf(token.getPoliciesList()),
              token.getIdentitiesList().stream().map(ClientIdentity::key).toList());
        }, identities);
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
    return (permission, type, tenancy, name) -> {
      TokenGrant token = tokens.get(hash);
      if (token == null) {
        throw unauthenticated("the ACL token was deleted");
      }
      return allowed(token, permission, type, tenancy, name);
    };
  }

  /**
   * The authorizer of whoever holds a client certificate with {@code identity}: the token that
   * lists it, looked up again on every check, so that removing the identity from its token (or
   * deleting the token) ends what the certificate may do, open watches included.
   *
   * @throws StatusRuntimeException {@code UNAUTHENTICATED} when no token, or more than one, lists it
   */
  Authorizer authenticate(ClientIdentity identity) {
    tokenOf(identity, "");
    return (permission, type, tenancy, name) ->
        allowed(tokenOf(identity, " any more"), permission, type, tenancy, name);
  }

  private TokenGrant tokenOf(ClientIdentity identity, String anyMore) {
    for (String key : identity.keys()) {
      List<String> hashes = identities.tokens(key);
      List<TokenGrant> listing = hashes.stream().map(tokens::get).filter(Objects::nonNull).toList();
      if (listing.size() == 1) {
        return listing.get(0);
      }
      if (listing.size() > 1) {
        throw unauthenticated("the client certificate's identity (" + identity.describe() + ") is listed by several ACL tokens ("
            + String.join(", ", listing.stream().map(TokenGrant::name).sorted().toList()) + "): list it in one only");
      }
    }
    throw unauthenticated("no ACL token lists the client certificate's identity" + anyMore + " (" + identity.describe()
        + "): add it to a token's identities, or send a token secret");
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

  /** Granted when an allow rule of the token's policies grants it and no deny rule of them denies it. */
  private boolean allowed(TokenGrant token, Permission permission, Type type, Tenancy tenancy, String name) {
    if (token.management()) {
      return true;
    }
    boolean allowed = false;
    for (String policyName : token.policies()) {
      Grants grants = policies.get(policyName);
      if (grants == null) {
        continue;
      }
      if (grants.denies(permission, type, tenancy, name)) {
        return false;
      }
      allowed = allowed || grants.allows(permission, type, tenancy, name);
    }
    return allowed;
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
