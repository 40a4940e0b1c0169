package io.setpoint.server;

import static io.setpoint.server.HttpRequests.checkJson;
import static io.setpoint.server.HttpRequests.only;

import com.google.protobuf.MessageOrBuilder;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.setpoint.api.Echo;
import io.setpoint.api.Types;
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
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import io.setpoint.storage.StorageException;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The gateway's routes of one type, {@code /api/{group}/{version}/{kind}...}: List and WatchList
 * (as server-sent events), Read, Write (a PUT, or its dry run), Delete, WriteStatus and
 * ListByOwner, each turned into the {@link ResourceHandler} call the gRPC service makes.
 */
final class HttpResourceRoutes {
  private static final Set<String> LIST =
      Set.of("partition", "namespace", "name_prefix", "page_size", "page_token", "consistent", "watch", "hash_ranges");
  private static final Set<String> WATCH = Set.of("partition", "namespace", "name_prefix", "watch", "hash_ranges");
  private static final Set<String> READ = Set.of("partition", "namespace", "uid", "consistent");
  private static final Set<String> WRITE = Set.of("partition", "namespace", "uid", "version");
  private static final Set<String> PUT = Set.of("partition", "namespace", "uid", "version", "dry_run");
  static final Set<String> OWNED = Set.of("partition", "namespace", "uid", "page_size", "page_token");

  private final ResourceHandler handler;
  private final WatchStreamer streamer;
  private final Supplier<ProtoJson> json;

  /** @param json the JSON mapping of the types as they are now */
  HttpResourceRoutes(ResourceHandler handler, WatchStreamer streamer, Supplier<ProtoJson> json) {
    this.handler = handler;
    this.streamer = streamer;
    this.json = json;
  }

  /** Answers a request whose path, {@code segments} after {@code /api/}, names {@code reg}'s type. */
  HttpResponse route(ServiceRequestContext ctx, AggregatedHttpRequest req, Authorizer authz, Registration<?> reg,
      List<String> segments) {
    HttpMethod method = req.method();
    Type type = reg.type();
    if (segments.size() == 3) {
      only(method, HttpMethod.GET);
      return list(ctx, req, authz, type);
    }
    String name = segments.get(3);
    if (segments.size() == 4) {
      if (method == HttpMethod.GET) {
        Query q = Query.of(ctx.queryParams(), READ);
        return resourceAnswer(req, handler.read(authz, ReadRequest.newBuilder()
            .setId(q.id(type, name)).setConsistent(q.flag("consistent")).build()).getResource());
      }
      if (method == HttpMethod.PUT) {
        return put(ctx, req, authz, reg, name);
      }
      if (method == HttpMethod.DELETE) {
        Query q = Query.of(ctx.queryParams(), WRITE);
        Preconditions pre = Preconditions.ofReplace(req.headers(), "a DELETE");
        DeleteRequest.Builder delete =
            DeleteRequest.newBuilder().setId(q.id(type, name)).setVersion(pre.version(q.string("version")))
                .setRequestId(pre.requestId());
        if (pre.fenced()) {
          delete.setFence(pre.fence());
        }
        return ok(handler.delete(authz, delete.build()));
      }
      throw HttpRequests.methodNotAllowed(method, "GET, PUT, DELETE");
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
          .setId(q.id(type, name))
          .setKey(String.join("/", segments.subList(5, segments.size())))
          .setStatus(json.get().status(ProtoJson.object(req.content().array(), "status")))
          .setVersion(pre.version(q.string("version")))
          .setRequestId(pre.requestId());
      if (pre.fenced()) {
        writeStatus.setFence(pre.fence());
      }
      return ok(handler.writeStatus(authz, writeStatus.build()).getResource());
    }
    throw HttpRequests.noRoute(ctx.path());
  }

  /** A PUT of a resource: a Write, or with {@code dry_run} its admission alone. */
  private HttpResponse put(
      ServiceRequestContext ctx, AggregatedHttpRequest req, Authorizer authz, Registration<?> reg, String name) {
    Preconditions pre = Preconditions.ofPut(req.headers());
    Query q = Query.of(ctx.queryParams(), PUT);
    Resource resource = resource(reg, name, q, pre, req);
    if (q.flag("dry_run")) {
      // As kubectl apply --dry-run=server: admitted (mutated, validated, authorized), not stored.
      return resourceAnswer(req, handler.mutateAndValidate(authz,
          MutateAndValidateRequest.newBuilder().setResource(resource).build()).getResource());
    }
    WriteRequest.Builder write = WriteRequest.newBuilder()
        .setResource(resource)
        .setCreateOnly(pre.createOnly())
        .setRequestId(pre.requestId());
    if (pre.fenced()) {
      write.setFence(pre.fence());
    }
    return resourceAnswer(req, handler.write(authz, write.build()).getResource());
  }

  private HttpResponse list(ServiceRequestContext ctx, AggregatedHttpRequest req, Authorizer authz, Type type) {
    Query q = Query.of(ctx.queryParams(), LIST);
    if (q.flag("watch")) {
      q = Query.of(ctx.queryParams(), WATCH);
      long since = HttpRequests.lastEventId(req);
      FilteredWatch watch;
      try {
        watch = handler.watchList(authz, WatchListRequest.newBuilder()
            .setType(type).setTenancy(q.tenancy()).setNamePrefix(q.string("name_prefix")).setSinceRevision(since)
            .addAllHashRanges(q.hashRanges("hash_ranges")).build());
      } catch (StorageException e) {
        if (e.reason() == StorageException.Reason.FUTURE_REVISION) {
          throw ValidationException.of("Last-Event-ID", "revision", e.getMessage());
        }
        throw e;
      }
      SseWatch sse = new SseWatch(json.get(), since == 0);
      streamer.stream(watch, sse);
      return sse.response();
    }
    return ok(handler.list(authz, ListRequest.newBuilder()
        .setType(type)
        .setTenancy(q.tenancy())
        .setNamePrefix(q.string("name_prefix"))
        .setPageSize(q.uint32("page_size"))
        .setPageToken(q.string("page_token"))
        .setConsistent(q.flag("consistent"))
        .addAllHashRanges(q.hashRanges("hash_ranges"))
        .build()));
  }

  /** The owner's children; without {@code uid}, those of its current incarnation. */
  private HttpResponse owned(Authorizer authz, Type type, String name, Query q) {
    ID owner = q.id(type, name);
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
    byte[] document;
    if (Yaml.sent(req)) {
      document = Yaml.toJson(req.content().array(), "resource");
    } else {
      checkJson(req);
      document = req.content().array();
    }
    Resource body = json.get().resource(ProtoJson.object(document, "resource"), reg);
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

  /** A resource as JSON, or as YAML when the request asks for it ({@link Yaml}). */
  private HttpResponse resourceAnswer(AggregatedHttpRequest req, Resource resource) {
    return Yaml.asked(req) ? Yaml.ok(json.get().print(resource)) : ok(resource);
  }

  private HttpResponse ok(MessageOrBuilder message) {
    return Json.ok(json.get(), message);
  }
}
