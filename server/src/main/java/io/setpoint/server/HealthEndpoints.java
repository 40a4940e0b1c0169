package io.setpoint.server;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.ServerBuilder;
import io.grpc.StatusRuntimeException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.Manager;
import io.setpoint.resource.AclHooks.Permission;
import io.setpoint.resource.PermissionDeniedException;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Health;
import io.setpoint.storage.Replication;
import io.setpoint.storage.StorageException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * The agent's operational endpoints: {@code /metrics} (Prometheus), {@code /healthz} and {@code
 * /livez} (the process answers), and {@code /readyz} (it can serve: started, its store can take
 * writes, its controllers run).
 */
final class HealthEndpoints {
  private final PrometheusMeterRegistry meters;
  private final CallerResolver metricsCallers;
  private final Backend store;
  private final Replication replication;
  private final Supplier<Manager> manager;
  private final AtomicBoolean started = new AtomicBoolean();

  /**
   * @param metricsCallers who may read {@code /metrics}, or null when anyone may
   * @param replication the store's replication, or null when it has none
   * @param manager the agent's manager, null until it is built
   */
  HealthEndpoints(PrometheusMeterRegistry meters, CallerResolver metricsCallers, Backend store,
      Replication replication, Supplier<Manager> manager) {
    this.meters = meters;
    this.metricsCallers = metricsCallers;
    this.store = store;
    this.replication = replication;
    this.manager = manager;
  }

  /** Serves the endpoints on {@code server}. */
  void bind(ServerBuilder server) {
    server.service("/metrics", (ctx, req) -> metrics(ctx.sslSession(), req))
        .service("/healthz", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ok\n"))
        .service("/livez", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ok\n"))
        .service("/readyz", (ctx, req) -> readinessResponse());
  }

  /** Marks the agent started: from now on readiness depends on the store and the controllers. */
  void started() {
    started.set(true);
  }

  /** The Prometheus page; with callers to check, only for a token with operator:read (401 / 403 otherwise). */
  private HttpResponse metrics(SSLSession tls, HttpRequest req) {
    if (metricsCallers != null) {
      try {
        metricsCallers.resolve(req.headers(), tls).require(
            Permission.OPERATOR_READ, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
      } catch (StatusRuntimeException e) {
        return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8,
            "/metrics needs an ACL token with operator:read (Authorization: Bearer): "
                + e.getStatus().getDescription() + "\n");
      } catch (PermissionDeniedException e) {
        return HttpResponse.of(HttpStatus.FORBIDDEN, MediaType.PLAIN_TEXT_UTF_8,
            "/metrics needs operator:read, which this token lacks\n");
      }
    }
    return HttpResponse.of(HttpStatus.OK, MediaType.parse("text/plain; version=0.0.4; charset=utf-8"), meters.scrape());
  }

  /**
   * Ready once started, with a store that can take writes (on a replicated store: one that can
   * commit and apply them, see its health), this member in the cluster with a Raft leader known
   * and the caches of the controllers that run here primed, none of them stopped by a failure;
   * otherwise failing, saying what it waits for. The cluster page shows the same.
   */
  Health readiness() {
    // Started first: once started, the manager is there to ask.
    boolean ready = started.get();
    Manager manager = this.manager.get();
    Health health = ready ? store.health() : Health.failing("starting");
    try {
      List<Replication.Member> members = health.ok() && replication != null ? replication.members() : List.of();
      if (health.ok() && replication != null && members.stream().noneMatch(m -> m.name().equals(replication.nodeName()))) {
        health = Health.failing("this member is not in the cluster it knows of: it was removed (stop it), or not added yet");
      } else if (health.ok() && replication != null && members.stream().noneMatch(Replication.Member::leader)) {
        health = Health.failing("no Raft leader known: a majority of the members must be up and reach each other");
      }
    } catch (StorageException e) {
      health = Health.failing(e.getMessage());
    }
    List<String> unprimed = health.ok() && manager != null ? manager.unprimed() : List.of();
    if (!unprimed.isEmpty()) {
      health = Health.failing("the caches of controllers " + String.join(", ", unprimed) + " are not primed yet");
    }
    List<String> stopped = health.ok() && manager != null ? manager.stopped() : List.of();
    if (!stopped.isEmpty()) {
      health = Health.failing("controllers that should run here do not: " + String.join("; ", stopped));
    }
    return health;
  }

  /** 200 when {@linkplain #readiness() ready}, otherwise 503 with the reason. */
  private HttpResponse readinessResponse() {
    Health health = readiness();
    return health.ok()
        ? HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ready\n")
        : HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8, health.reason() + "\n");
  }
}
