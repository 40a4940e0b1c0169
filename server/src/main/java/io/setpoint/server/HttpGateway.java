package io.setpoint.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServerErrorHandler;
import com.linecorp.armeria.server.ServiceBindingBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * The HTTP/JSON face of the resource service, under {@code /api} on the agent's port. Every route
 * calls the same {@link ResourceHandler} method as the gRPC service, with the caller's {@link
 * Authorizer} from a {@link CallerResolver}, on a virtual thread:
 *
 * <pre>
 * GET    /api/{group}/{version}/{kind}                    List (partition, namespace, name_prefix,
 *                                                         page_size, page_token, consistent)
 * GET    /api/{group}/{version}/{kind}?watch=true         WatchList as server-sent events
 *                                                         (partition, namespace, name_prefix; Last-Event-ID)
 * GET    /api/{group}/{version}/{kind}/{name}             Read (partition, namespace, uid, consistent)
 * PUT    /api/{group}/{version}/{kind}/{name}             Write (partition, namespace, uid, version;
 *                                                         If-None-Match: * creates only, If-Match: VERSION)
 * DELETE /api/{group}/{version}/{kind}/{name}             Delete (partition, namespace, uid, version)
 * PUT    /api/{group}/{version}/{kind}/{name}/status/{key} WriteStatus (partition, namespace, uid, version)
 * GET    /api/{group}/{version}/{kind}/{name}/owned       ListByOwner (partition, namespace, uid, page_size, page_token)
 * GET    /api/types                                       the served types, with JSON Schemas
 * GET    /api/openapi.json                                an OpenAPI 3.1 document
 * GET    /api/operator/cluster                            this member's view of the cluster (operator:read)
 * GET    /api/operator/metrics                            the last 15 minutes of the agent's meters (operator:read)
 * </pre>
 *
 * <p>With ACLs on, every route needs a valid token ({@code Authorization: Bearer}); {@code
 * /api/types} and {@code /api/openapi.json} need nothing more, as they describe schema, not data.
 *
 * <p>Bodies and answers follow protobuf's canonical JSON mapping, a resource's data without its
 * {@code @type}; failures are JSON error bodies with HTTP statuses mapped from the gRPC codes (see
 * docs/http-api.md). Bind it with {@code serverBuilder.withRoute(gateway::bind)}.
 *
 * <p>This class decides which route a request takes; {@link HttpResourceRoutes}, {@link
 * HttpControllerRoutes} and {@link HttpOperatorRoutes} answer it, reading its parts with {@link HttpRequests}.
 */
final class HttpGateway implements HttpService {
  private final Registry registry;
  private final HttpResourceRoutes resources;
  private final HttpControllerRoutes controllers;
  private final HttpOperatorRoutes operator;
  private final CallerResolver callers;
  private final int maxRequestBytes;
  /** What is derived from the registry, rebuilt when a type is added, changed or removed at runtime. */
  private volatile Derived derived;
  private final Executor blocking =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("setpoint-http-", 0).factory());

  /**
   * @param registry the types; those registered with {@code http(false)} are not served
   * @param maxRequestBytes the largest request body read; larger ones get 413
   */
  public HttpGateway(Registry registry, ResourceHandler handler, WatchStreamer streamer, Controllers controllers,
      ClusterReport cluster, MeterHistory history, CallerResolver callers, int maxRequestBytes) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.resources = new HttpResourceRoutes(
        Objects.requireNonNull(handler, "handler"), Objects.requireNonNull(streamer, "streamer"), () -> derived().json());
    this.controllers = new HttpControllerRoutes(
        registry, Objects.requireNonNull(controllers, "controllers"), () -> derived().json());
    this.operator = new HttpOperatorRoutes(
        Objects.requireNonNull(cluster, "cluster"), Objects.requireNonNull(history, "history"), () -> derived().json());
    this.callers = Objects.requireNonNull(callers, "callers");
    this.maxRequestBytes = maxRequestBytes;
    this.derived = Derived.of(registry);
  }

  private record Derived(long version, ProtoJson json, ObjectNode types, ObjectNode openApi) {
    static Derived of(Registry registry) {
      long version = registry.version();
      List<Registration<?>> served = registry.types().stream().filter(Registration::http).toList();
      return new Derived(version, new ProtoJson(registry.types()), ApiDocuments.types(served), ApiDocuments.openApi(served));
    }
  }

  /** The JSON mapping and documents of the registry as it is now. */
  private Derived derived() {
    Derived d = derived;
    if (d.version() != registry.version()) {
      d = Derived.of(registry);
      derived = d;
    }
    return d;
  }

  /** Binds the gateway under {@code /api}, with its body limit and JSON answers to protocol errors. */
  public void bind(ServiceBindingBuilder route) {
    route.pathPrefix("/api")
        .maxRequestLength(maxRequestBytes)
        .errorHandler(JsonErrors.serviceErrorHandler())
        .build(this);
  }

  /**
   * JSON error bodies, like the gateway's, for what the server answers before any route or service
   * (a path that does not decode, a URI over the length limit, no such path, a body over the
   * server's limit). Install with {@code ServerBuilder.errorHandler}.
   */
  public static ServerErrorHandler serverErrorHandler() {
    return JsonErrors.serverErrorHandler();
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    return HttpResponse.of(req.aggregate()
        .thenApplyAsync(request -> route(ctx, request), blocking)
        .exceptionally(JsonErrors::response));
  }

  private HttpResponse route(ServiceRequestContext ctx, AggregatedHttpRequest req) {
    // Who is asking comes first: without a valid token (ACLs on) every route answers 401, so
    // nothing about types or routes is told to an anonymous caller.
    Authorizer authz = callers.resolve(req.headers(), ctx.sslSession());
    List<String> segments = HttpRequests.segments(ctx.path());
    HttpRequests.checkQuery(ctx.query());
    HttpMethod method = req.method();
    if (segments.size() == 1 && segments.get(0).equals("types")) {
      HttpRequests.only(method, HttpMethod.GET);
      return Json.response(HttpStatus.OK, derived().types());
    }
    if (segments.size() == 1 && segments.get(0).equals("openapi.json")) {
      HttpRequests.only(method, HttpMethod.GET);
      return Json.response(HttpStatus.OK, derived().openApi());
    }
    if (HttpControllerRoutes.isControllerRoute(segments)) {
      return controllers.controllers(ctx, req, authz, segments);
    }
    if (HttpOperatorRoutes.isOperatorRoute(segments)) {
      return operator.route(ctx, req, authz, segments);
    }
    if (segments.size() == 1 && segments.get(0).equals("reconciles")) {
      HttpRequests.only(method, HttpMethod.GET);
      return controllers.reconciles(ctx, authz, "");
    }
    if (segments.size() < 3) {
      throw HttpRequests.noRoute(ctx.path());
    }
    return resources.route(ctx, req, authz, HttpRequests.servedType(registry, segments), segments);
  }
}
