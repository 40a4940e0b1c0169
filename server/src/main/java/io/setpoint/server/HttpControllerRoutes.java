package io.setpoint.server;

import static io.setpoint.server.HttpRequests.only;

import com.google.protobuf.MessageOrBuilder;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.setpoint.api.Echo;
import io.setpoint.api.Types;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ReconcileRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.ValidationException;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The gateway's routes of the controller API: {@code /api/controllers} (the controllers, one of
 * them, its recent reconciles, a reconcile asked for) and {@code /api/reconciles}, each turned into
 * the {@link Controllers} call the gRPC service makes.
 */
final class HttpControllerRoutes {
  private static final Set<String> RECONCILES = Set.of("resource", "partition", "namespace", "limit");

  private final Registry registry;
  private final Controllers controllers;
  private final Supplier<ProtoJson> json;

  /** @param json the JSON mapping of the types as they are now */
  HttpControllerRoutes(Registry registry, Controllers controllers, Supplier<ProtoJson> json) {
    this.registry = registry;
    this.controllers = controllers;
    this.json = json;
  }

  /**
   * {@code controllers}, {@code controllers/NAME}, {@code controllers/NAME/reconciles} and {@code
   * controllers/NAME/reconcile/GROUP/VERSION/KIND/NAME}; no type route can take these paths, since
   * a type route has three segments or more and a kind, third, starts with a capital letter.
   */
  static boolean isControllerRoute(List<String> segments) {
    return segments.get(0).equals("controllers")
        && (segments.size() <= 2 || (segments.size() == 3 && segments.get(2).equals("reconciles"))
            || (segments.size() >= 3 && segments.get(2).equals("reconcile")));
  }

  /** Answers a request of {@link #isControllerRoute a controller route}. */
  HttpResponse controllers(
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
    Registration<?> reg = HttpRequests.servedType(registry, segments.subList(3, 6));
    Query q = Query.of(ctx.queryParams(), HttpResourceRoutes.OWNED);
    return ok(controllers.reconcile(authz, ReconcileRequest.newBuilder()
        .setController(segments.get(1))
        .setId(q.id(reg.type(), segments.get(6)))
        .build()));
  }

  /** The recent reconciles of {@code controller} (or all), of {@code ?resource=GROUP/VERSION/KIND/NAME} or all. */
  HttpResponse reconciles(ServiceRequestContext ctx, Authorizer authz, String controller) {
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
          .setTenancy(q.tenancy()));
    }
    return ok(controllers.reconciles(authz, request.build()));
  }

  private HttpResponse ok(MessageOrBuilder message) {
    return Json.ok(json.get(), message);
  }
}
