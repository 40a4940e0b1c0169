package io.setpoint.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServerErrorHandler;
import com.linecorp.armeria.server.ServiceBindingBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.grpc.Status;
import io.setpoint.api.Echo;
import io.setpoint.api.Types;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ReconcileRequest;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.resource.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import io.setpoint.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
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
 * </pre>
 *
 * <p>With ACLs on, every route needs a valid token ({@code Authorization: Bearer}); {@code
 * /api/types} and {@code /api/openapi.json} need nothing more, as they describe schema, not data.
 *
 * <p>Bodies and answers follow protobuf's canonical JSON mapping, a resource's data without its
 * {@code @type}; failures are JSON error bodies with HTTP statuses mapped from the gRPC codes (see
 * docs/http-api.md). Bind it with {@code serverBuilder.withRoute(gateway::bind)}.
 */
final class HttpGateway implements HttpService {
  private static final String PREFIX = "/api/";
  private static final Set<String> LIST =
      Set.of("partition", "namespace", "name_prefix", "page_size", "page_token", "consistent", "watch", "hash_ranges");
  private static final Set<String> WATCH = Set.of("partition", "namespace", "name_prefix", "watch", "hash_ranges");
  private static final Set<String> READ = Set.of("partition", "namespace", "uid", "consistent");
  private static final Set<String> WRITE = Set.of("partition", "namespace", "uid", "version");
  private static final Set<String> PUT = Set.of("partition", "namespace", "uid", "version", "dry_run");
  private static final Set<String> OWNED = Set.of("partition", "namespace", "uid", "page_size", "page_token");
  private static final Set<String> RECONCILES = Set.of("resource", "partition", "namespace", "limit");
  /** What the first path segments after {@code /api/} are, for errors about them. */
  private static final List<String> SEGMENT_FIELDS = List.of("group", "group_version", "kind", "name");

  private final Registry registry;
  private final ResourceHandler handler;
  private final Controllers controllers;
  private final WatchStreamer streamer;
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
      CallerResolver callers, int maxRequestBytes) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.controllers = Objects.requireNonNull(controllers, "controllers");
    this.streamer = Objects.requireNonNull(streamer, "streamer");
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
    Authorizer authz = callers.resolve(req.headers());
    List<String> segments = segments(ctx.path());
    checkQuery(ctx.query());
    HttpMethod method = req.method();
    if (segments.size() == 1 && segments.get(0).equals("types")) {
      only(method, HttpMethod.GET);
      return Json.response(HttpStatus.OK, derived().types());
    }
    if (segments.size() == 1 && segments.get(0).equals("openapi.json")) {
      only(method, HttpMethod.GET);
      return Json.response(HttpStatus.OK, derived().openApi());
    }
    if (segments.get(0).equals("controllers") && isControllerRoute(segments)) {
      return controllers(ctx, req, authz, segments);
    }
    if (segments.size() == 1 && segments.get(0).equals("reconciles")) {
      only(method, HttpMethod.GET);
      return reconciles(ctx, authz, "");
    }
    if (segments.size() < 3) {
      throw HttpProblem.notFound("no route " + Echo.quote(ctx.path()) + "; see GET /api/openapi.json");
    }
    Registration<?> reg = registration(segments);
    Type type = reg.type();
    if (segments.size() == 3) {
      only(method, HttpMethod.GET);
      return list(ctx, req, authz, type);
    }
    String name = segments.get(3);
    if (segments.size() == 4) {
      if (method == HttpMethod.GET) {
        Query q = Query.of(ctx.queryParams(), READ);
        return ok(handler.read(authz, ReadRequest.newBuilder()
            .setId(id(type, name, q)).setConsistent(q.flag("consistent")).build()).getResource());
      }
      if (method == HttpMethod.PUT) {
        Preconditions pre = Preconditions.ofPut(req.headers());
        Query q = Query.of(ctx.queryParams(), PUT);
        Resource resource = resource(reg, name, q, pre, req);
        if (q.flag("dry_run")) {
          // As kubectl apply --dry-run=server: admitted (mutated, validated, authorized), not stored.
          return ok(handler.mutateAndValidate(authz,
              MutateAndValidateRequest.newBuilder().setResource(resource).build()).getResource());
        }
        WriteRequest.Builder write = WriteRequest.newBuilder()
            .setResource(resource)
            .setCreateOnly(pre.createOnly())
            .setRequestId(pre.requestId());
        if (pre.fenced()) {
          write.setFence(pre.fence());
        }
        return ok(handler.write(authz, write.build()).getResource());
      }
      if (method == HttpMethod.DELETE) {
        Query q = Query.of(ctx.queryParams(), WRITE);
        Preconditions pre = Preconditions.ofReplace(req.headers(), "a DELETE");
        DeleteRequest.Builder delete =
            DeleteRequest.newBuilder().setId(id(type, name, q)).setVersion(pre.version(q.string("version")))
                .setRequestId(pre.requestId());
        if (pre.fenced()) {
          delete.setFence(pre.fence());
        }
        return ok(handler.delete(authz, delete.build()));
      }
      throw methodNotAllowed(method, "GET, PUT, DELETE");
    }
    if (segments.size() == 5 && segments.get(4).equals("owned")) {
      only(method, HttpMethod.GET);
      return owned(authz, type, name, Query.of(ctx.queryParams(), OWNED));
    }
    if (segments.size() >= 6 && segments.get(4).equals("status")) {
      only(method, HttpMethod.PUT);
      Query q = Query.of(ctx.queryParams(), WRITE);
      Preconditions pre = Preconditions.ofReplace(req.headers(), "a PUT of a status");
      checkJson(req);
      WriteStatusRequest.Builder writeStatus = WriteStatusRequest.newBuilder()
          .setId(id(type, name, q))
          .setKey(String.join("/", segments.subList(5, segments.size())))
          .setStatus(derived().json().status(ProtoJson.object(req.content().array(), "status")))
          .setVersion(pre.version(q.string("version")))
          .setRequestId(pre.requestId());
      if (pre.fenced()) {
        writeStatus.setFence(pre.fence());
      }
      return ok(handler.writeStatus(authz, writeStatus.build()).getResource());
    }
    throw HttpProblem.notFound("no route " + Echo.quote(ctx.path()) + "; see GET /api/openapi.json");
  }

  /**
   * {@code controllers}, {@code controllers/NAME}, {@code controllers/NAME/reconciles} and {@code
   * controllers/NAME/reconcile/GROUP/VERSION/KIND/NAME}; no type route can take these paths, since
   * a type route has three segments or more and a kind, third, starts with a capital letter.
   */
  private static boolean isControllerRoute(List<String> segments) {
    return segments.size() <= 2 || (segments.size() == 3 && segments.get(2).equals("reconciles"))
        || (segments.size() >= 3 && segments.get(2).equals("reconcile"));
  }

  private HttpResponse controllers(
      ServiceRequestContext ctx, AggregatedHttpRequest req, Authorizer authz, List<String> segments) {
    if (segments.size() == 1) {
      only(req.method(), HttpMethod.GET);
      return ok(controllers.list(authz));
    }
    if (segments.size() == 2) {
      only(req.method(), HttpMethod.GET);
      return ok(controllers.get(authz, segments.get(1)));
    }
    if (segments.get(2).equals("reconciles")) {
      only(req.method(), HttpMethod.GET);
      return reconciles(ctx, authz, segments.get(1));
    }
    only(req.method(), HttpMethod.POST);
    if (segments.size() != 7) {
      throw HttpProblem.notFound("no route " + Echo.quote(ctx.path())
          + "; reconcile with POST /api/controllers/{controller}/reconcile/{group}/{version}/{kind}/{name}");
    }
    Registration<?> reg = registration(segments.subList(3, 6));
    Query q = Query.of(ctx.queryParams(), OWNED);
    return ok(controllers.reconcile(authz, ReconcileRequest.newBuilder()
        .setController(segments.get(1))
        .setId(id(reg.type(), segments.get(6), q))
        .build()));
  }

  /** The recent reconciles of {@code controller} (or all), of {@code ?resource=GROUP/VERSION/KIND/NAME} or all. */
  private HttpResponse reconciles(ServiceRequestContext ctx, Authorizer authz, String controller) {
    Query q = Query.of(ctx.queryParams(), RECONCILES);
    ListReconcilesRequest.Builder request = ListReconcilesRequest.newBuilder()
        .setController(controller)
        .setLimit(q.uint32("limit"));
    if (q.has("resource")) {
      String[] parts = q.string("resource").split("/", -1);
      if (parts.length != 4) {
        throw ValidationException.of("resource", "format", Echo.quote(q.string("resource"))
            + " is not GROUP/VERSION/KIND/NAME (the tenancy goes in partition and namespace)");
      }
      request.setId(ID.newBuilder().setType(Types.of(parts[0], parts[1], parts[2])).setName(parts[3])
          .setTenancy(tenancy(q)));
    }
    return ok(controllers.reconciles(authz, request.build()));
  }

  private HttpResponse list(ServiceRequestContext ctx, AggregatedHttpRequest req, Authorizer authz, Type type) {
    Query q = Query.of(ctx.queryParams(), LIST);
    if (q.flag("watch")) {
      q = Query.of(ctx.queryParams(), WATCH);
      long since = lastEventId(req);
      FilteredWatch watch;
      try {
        watch = handler.watchList(authz, WatchListRequest.newBuilder()
            .setType(type).setTenancy(tenancy(q)).setNamePrefix(q.string("name_prefix")).setSinceRevision(since)
            .addAllHashRanges(q.hashRanges("hash_ranges")).build());
      } catch (StorageException e) {
        if (e.reason() == StorageException.Reason.FUTURE_REVISION) {
          throw ValidationException.of("Last-Event-ID", "revision", e.getMessage());
        }
        throw e;
      }
      SseWatch sse = new SseWatch(derived().json(), since == 0);
      streamer.stream(watch, sse);
      return sse.response();
    }
    return ok(handler.list(authz, ListRequest.newBuilder()
        .setType(type)
        .setTenancy(tenancy(q))
        .setNamePrefix(q.string("name_prefix"))
        .setPageSize(q.uint32("page_size"))
        .setPageToken(q.string("page_token"))
        .setConsistent(q.flag("consistent"))
        .addAllHashRanges(q.hashRanges("hash_ranges"))
        .build()));
  }

  /** The owner's children; without {@code uid}, those of its current incarnation. */
  private HttpResponse owned(Authorizer authz, Type type, String name, Query q) {
    ID owner = id(type, name, q);
    if (owner.getUid().isEmpty()) {
      owner = handler.read(authz, ReadRequest.newBuilder().setId(owner).build()).getResource().getId();
    }
    return ok(handler.listByOwner(authz, ListByOwnerRequest.newBuilder().setOwner(owner)
        .setPageSize(q.uint32("page_size")).setPageToken(q.string("page_token")).build()));
  }

  /**
   * The resource of a PUT: the body, its id from the URL. The body may repeat what the URL says
   * (a document read can be written back as is) but not contradict it; nor may an {@code If-Match}.
   */
  private Resource resource(Registration<?> reg, String name, Query q, Preconditions pre, AggregatedHttpRequest req) {
    checkJson(req);
    Resource body = derived().json().resource(ProtoJson.object(req.content().array(), "resource"), reg);
    ID given = body.getId();
    Violations v = Violations.at("resource");
    agree(v, "id.type", given.hasType() ? Types.format(given.getType()) : "", Types.format(reg.type()));
    agree(v, "id.name", given.getName(), name);
    ID id = ID.newBuilder()
        .setType(reg.type())
        .setName(name)
        .setTenancy(Tenancy.newBuilder()
            .setPartition(agree(v, "id.tenancy.partition", given.getTenancy().getPartition(), q.string("partition")))
            .setNamespace(agree(v, "id.tenancy.namespace", given.getTenancy().getNamespace(), q.string("namespace"))))
        .setUid(agree(v, "id.uid", given.getUid(), q.string("uid")))
        .build();
    String version = agree(v, "version", body.getVersion(), pre.version(q.string("version")));
    v.throwIfAny();
    return body.toBuilder().setId(id).setVersion(version).build();
  }

  /** What the URL says, or else the body; a violation when both say different things. */
  private static String agree(Violations v, String field, String fromBody, String fromUrl) {
    if (!fromBody.isEmpty() && !fromUrl.isEmpty() && !fromBody.equals(fromUrl)) {
      v.add(field, "url", Echo.quote(fromBody) + " contradicts " + Echo.quote(fromUrl) + " from the URL; leave it out or make them agree");
    }
    return fromUrl.isEmpty() ? fromBody : fromUrl;
  }

  private Registration<?> registration(List<String> segments) {
    Type type = Types.of(segments.get(0), segments.get(1), segments.get(2));
    return registry.resolve(type).filter(Registration::http).orElseThrow(() -> HttpProblem.notFound(
        "unknown type " + Echo.bounded(Types.format(type), Echo.MAX_ECHO) + ": this server serves no such type over HTTP; GET /api/types lists those it does"));
  }

  private static ID id(Type type, String name, Query q) {
    return ID.newBuilder().setType(type).setName(name).setTenancy(tenancy(q)).setUid(q.string("uid")).build();
  }

  private static Tenancy tenancy(Query q) {
    return Tenancy.newBuilder().setPartition(q.string("partition")).setNamespace(q.string("namespace")).build();
  }

  private static long lastEventId(AggregatedHttpRequest req) {
    String value = req.headers().get("last-event-id");
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      return Long.parseUnsignedLong(value.trim());
    } catch (NumberFormatException e) {
      throw ValidationException.of("Last-Event-ID", "revision", Echo.quote(value) + " must be the id of an event of an earlier watch (a store revision)");
    }
  }

  private HttpResponse ok(com.google.protobuf.MessageOrBuilder message) {
    return Json.response(HttpStatus.OK, derived().json().print(message));
  }

  /** A body, when given a content type, must be JSON in UTF-8. */
  private static void checkJson(AggregatedHttpRequest req) {
    MediaType type = req.contentType();
    String given = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
    if (type == null && given != null) {
      throw new HttpProblem(HttpStatus.UNSUPPORTED_MEDIA_TYPE, Status.Code.INVALID_ARGUMENT,
          "Content-Type " + Echo.quote(given) + " is not a media type: send application/json (UTF-8)");
    }
    if (type == null) {
      return;
    }
    boolean json = type.type().equals("application") && (type.subtype().equals("json") || type.subtype().endsWith("+json"));
    if (!json || (type.charset() != null && !type.charset().equals(StandardCharsets.UTF_8))) {
      throw new HttpProblem(HttpStatus.UNSUPPORTED_MEDIA_TYPE, Status.Code.INVALID_ARGUMENT,
          "Content-Type " + type + " is not supported: send application/json (UTF-8)");
    }
  }

  private static void only(HttpMethod method, HttpMethod allowed) {
    if (method != allowed) {
      throw methodNotAllowed(method, allowed.name());
    }
  }

  private static HttpProblem methodNotAllowed(HttpMethod method, String allowed) {
    return new HttpProblem(HttpStatus.METHOD_NOT_ALLOWED, Status.Code.UNIMPLEMENTED,
        method + " is not allowed here; this route takes " + allowed);
  }

  /**
   * The decoded path segments after {@code /api/}; %2F within a segment stays in it, {@code +} is
   * a plus.
   *
   * @throws ValidationException naming the segment's field when it does not decode to UTF-8
   */
  private static List<String> segments(String path) {
    String rest = path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : "";
    List<String> out = new ArrayList<>();
    for (String segment : rest.split("/", -1)) {
      if (segment.isEmpty()) {
        throw HttpProblem.notFound("no route " + Echo.quote(path) + ": empty path segment; see GET /api/openapi.json");
      }
      try {
        out.add(Utf8.percentDecode(segment));
      } catch (IllegalArgumentException e) {
        int i = out.size();
        String field = i < SEGMENT_FIELDS.size() ? SEGMENT_FIELDS.get(i) : i == 4 ? "path" : "key";
        throw ValidationException.of(field, "utf-8", "path segment " + (i + 1) + " after /api/ is " + e.getMessage());
      }
    }
    return out;
  }

  /**
   * Refuses a query string whose parameters do not decode to UTF-8 (Armeria's own decoding
   * replaces such bytes with U+FFFD), naming the parameter.
   */
  private static void checkQuery(String query) {
    if (query == null) {
      return;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      try {
        Utf8.percentDecode(name);
        Utf8.percentDecode(eq < 0 ? "" : pair.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw ValidationException.of(Echo.bounded(name, Echo.MAX_ECHO), "utf-8", "query parameter is " + e.getMessage());
      }
    }
  }
}
