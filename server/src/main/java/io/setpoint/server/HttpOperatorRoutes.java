package io.setpoint.server;

import static io.setpoint.server.HttpRequests.only;

import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.AclHooks.Permission;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The gateway's operator routes, for the UI's cluster page, each needing {@code operator:read}
 * when ACLs are on: {@code /api/operator/cluster} (what {@code OperatorService/GetClusterStatus}
 * answers, from the same {@link ClusterReport}) and {@code /api/operator/metrics} (the {@link
 * MeterHistory} of the last 15 minutes).
 */
final class HttpOperatorRoutes {
  private final ClusterReport cluster;
  private final MeterHistory history;
  private final Supplier<ProtoJson> json;

  HttpOperatorRoutes(ClusterReport cluster, MeterHistory history, Supplier<ProtoJson> json) {
    this.cluster = cluster;
    this.history = history;
    this.json = json;
  }

  /** Whether {@code segments} name an operator route; a type route has three segments or more. */
  static boolean isOperatorRoute(List<String> segments) {
    return segments.size() == 2 && segments.get(0).equals("operator");
  }

  HttpResponse route(ServiceRequestContext ctx, AggregatedHttpRequest req, Authorizer authz, List<String> segments) {
    only(req.method(), HttpMethod.GET);
    Query.of(ctx.queryParams(), Set.of()); // takes no parameters, and says so
    return switch (segments.get(1)) {
      case "cluster" -> {
        authz.require(Permission.OPERATOR_READ, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
        yield Json.ok(json.get(), cluster.status());
      }
      case "metrics" -> {
        authz.require(Permission.OPERATOR_READ, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
        yield Json.response(HttpStatus.OK, history.json());
      }
      default -> throw HttpRequests.noRoute(ctx.path());
    };
  }
}
