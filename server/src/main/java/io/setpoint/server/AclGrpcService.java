package io.setpoint.server;

import com.github.f4b6a3.ulid.UlidFactory;
import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import com.linecorp.armeria.server.annotation.Blocking;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.Ids;
import io.setpoint.api.acl.v1.AclServiceGrpc;
import io.setpoint.api.acl.v1.Bootstrap;
import io.setpoint.api.acl.v1.BootstrapRequest;
import io.setpoint.api.acl.v1.BootstrapResponse;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.CreateTokenResponse;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Hooks;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code setpoint.acl.v1.AclService}: the only calls that create secrets, and so the only ones
 * that return them. Both write through the {@link ResourceHandler}, so a token is validated and
 * authorized like any other write of {@code acl.v1.Token}.
 */
@Blocking
final class AclGrpcService extends AclServiceGrpc.AclServiceImplBase {
  private static final Logger log = LoggerFactory.getLogger(AclGrpcService.class);
  /** The server's own identity: bootstrap has no caller to act for. */
  private static final Authorizer SERVER = Authorizer.allowAll();
  /** How long a new token's secret is held back while this agent's view catches up. */
  private static final Duration TOKEN_VISIBLE = Duration.ofSeconds(10);

  private final ResourceHandler handler;
  private final Backend backend;
  private final Clock clock;
  /** Null on an agent without ACLs. */
  private final AclView view;
  private final UlidFactory ulids;

  /**
   * @param view the agent's tokens and policies; null on an agent without ACLs, where every call
   *     fails with FAILED_PRECONDITION
   */
  AclGrpcService(ResourceHandler handler, Backend backend, Clock clock, AclView view) {
    this.handler = handler;
    this.backend = backend;
    this.clock = clock;
    this.view = view;
    this.ulids = UlidFactory.newMonotonicInstance(new SecureRandom(), clock::millis);
  }

  @Override
  public void bootstrap(BootstrapRequest request, StreamObserver<BootstrapResponse> out) {
    UnaryCalls.answer(this::bootstrap, out);
  }

  @Override
  public void createToken(CreateTokenRequest request, StreamObserver<CreateTokenResponse> out) {
    UnaryCalls.answer(() -> createToken(request), out);
  }

  /**
   * Creates a management token, then records the bootstrap with a create-only compare-and-swap.
   * Of two racing bootstraps (on one server or several sharing a store) only one record is
   * stored; the loser deletes its token before refusing, and its secret is never shown.
   */
  private BootstrapResponse bootstrap() {
    requireEnabled();
    marker().ifPresent(AclGrpcService::refuseBootstrap);
    String secret = Secrets.generate();
    Resource token = handler.write(SERVER, WriteRequest.newBuilder()
        .setResource(resource(AclTypes.TOKEN, "bootstrap-" + ulid(), Token.newBuilder()
            .setDescription("Bootstrap management token")
            .setManagement(true)
            .setSecretHash(Secrets.hash(secret))
            .build()))
        .build()).getResource();
    try {
      Resource marker = resource(AclTypes.BOOTSTRAP, AclTypes.BOOTSTRAP_NAME, Bootstrap.newBuilder()
          .setToken(token.getId().getName())
          .setTime(timestamp(clock.instant()))
          .build());
      backend.writeCas(marker.toBuilder()
          .setId(marker.getId().toBuilder().setUid(ulids.create().toString()))
          .setGeneration(ulids.create().toString())
          .build());
    } catch (StorageException e) {
      if (e.reason() != StorageException.Reason.CAS_FAILURE && e.reason() != StorageException.Reason.WRONG_UID) {
        throw e;
      }
      handler.delete(SERVER, DeleteRequest.newBuilder().setId(token.getId()).build());
      marker().ifPresent(AclGrpcService::refuseBootstrap);
      throw Status.ABORTED.withDescription("a concurrent bootstrap raced this one; retry").asRuntimeException();
    }
    log.info("ACLs bootstrapped: management token {} created", token.getId().getName());
    awaitUsable(token, secret);
    return BootstrapResponse.newBuilder().setSecret(secret).setToken(token).build();
  }

  private CreateTokenResponse createToken(CreateTokenRequest request) {
    requireEnabled();
    Authorizer caller = CallerAuthorizer.current();
    String name = request.getName().isEmpty() ? "token-" + ulid() : request.getName();
    if (!Rules.DNS_LABEL.matcher(name).matches()) {
      throw ValidationException.of("name", "dns-label",
          "\"" + name + "\" must be a DNS label: lowercase letters, digits and -, at most 63 characters");
    }
    String secret = Secrets.generate();
    Resource token = resource(AclTypes.TOKEN, name, Token.newBuilder()
        .setDescription(request.getDescription())
        .addAllPolicies(request.getPoliciesList())
        .setManagement(request.getManagement())
        .addAllIdentities(request.getIdentitiesList())
        .setSecretHash(Secrets.hash(secret))
        .build());
    // Authorize (operator:write) and validate before saying anything about what exists.
    handler.mutateAndValidate(caller, MutateAndValidateRequest.newBuilder().setResource(token).build());
    Violations v = Violations.at("");
    for (int i = 0; i < request.getPoliciesCount(); i++) {
      String policy = request.getPolicies(i);
      if (stored(Ids.of(AclTypes.POLICY, policy)).isEmpty()) {
        v.add("policies[" + i + "]", "exists",
            "acl.v1.Policy \"" + policy + "\" does not exist; create it first (setpoint resource apply)");
      }
    }
    v.throwIfAny();
    if (stored(token.getId()).isPresent()) {
      throw Status.ALREADY_EXISTS
          .withDescription("acl.v1.Token \"" + name + "\" exists already: choose another name, or delete that token first")
          .asRuntimeException();
    }
    Resource stored = handler.write(caller, WriteRequest.newBuilder().setResource(token).build()).getResource();
    log.info("ACL token {} created", name);
    awaitUsable(stored, secret);
    return CreateTokenResponse.newBuilder().setSecret(secret).setToken(stored).build();
  }

  /**
   * Waits until this agent's view of the tokens has the one just stored, so that a client can use
   * a token as soon as it has been given one. The view follows the store through a watch, which
   * may not have delivered the token yet. If it still lacks it after the timeout, the secret is
   * returned anyway: the token is stored, and the secret is shown only once.
   */
  private void awaitUsable(Resource token, String secret) {
    try {
      if (!view.awaitToken(secret, TOKEN_VISIBLE)) {
        log.warn("ACL token {} is stored but not yet known to this agent after {}", token.getId().getName(), TOKEN_VISIBLE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void requireEnabled() {
    if (view == null) {
      throw Status.FAILED_PRECONDITION
          .withDescription("ACLs are off on this agent (-dev): there are no tokens to create; start it with ACLs on (-dev -acls)")
          .asRuntimeException();
    }
  }

  private Optional<Resource> marker() {
    return stored(Ids.of(AclTypes.BOOTSTRAP, AclTypes.BOOTSTRAP_NAME));
  }

  private Optional<Resource> stored(ID id) {
    try {
      return Optional.of(handler.read(SERVER, ReadRequest.newBuilder().setId(id).setConsistent(true).build()).getResource());
    } catch (StorageException e) {
      if (e.reason() == StorageException.Reason.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static void refuseBootstrap(Resource marker) {
    String token = Hooks.decode(marker, Bootstrap.class).data().getToken();
    throw Status.FAILED_PRECONDITION
        .withDescription("ACLs were bootstrapped already (management token " + token + "): bootstrap works only once. "
            + "Create more tokens with a management token (setpoint acl token create); to bootstrap again, "
            + "delete acl.v1.Bootstrap \"" + AclTypes.BOOTSTRAP_NAME + "\" with operator:write")
        .asRuntimeException();
  }

  private static Resource resource(Type type, String name, com.google.protobuf.Message data) {
    return Resource.newBuilder().setId(Ids.of(type, name)).setData(Any.pack(data)).build();
  }

  private String ulid() {
    return ulids.create().toString().toLowerCase(Locale.ROOT);
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
  }
}
