package io.setpoint.server;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.server.DecoratingHttpServiceFunction;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.setpoint.api.v1.ResourceServiceGrpc;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Caps the watches one client holds open at once (gRPC {@code WatchList} and {@code ?watch=true}
 * server-sent events alike), so that one client cannot tie up the server with watches it opens and
 * forgets. A client is counted as {@link ClientRefusals} names it; a watch past the cap is refused
 * at once with {@code RESOURCE_EXHAUSTED} (HTTP 429), and its slot is free again as soon as one of
 * the client's watches ends.
 */
final class WatchLimiter implements DecoratingHttpServiceFunction {
  private static final String GRPC_WATCH = "/" + ResourceServiceGrpc.SERVICE_NAME + "/WatchList";

  private final int perClient;
  private final Function<String, Optional<String>> tokenKeys;
  private final Map<String, Integer> open = new ConcurrentHashMap<>();
  private final Counter refused;

  WatchLimiter(int perClient, MeterRegistry meters, Function<String, Optional<String>> tokenKeys) {
    if (perClient < 1) {
      throw new IllegalArgumentException("a watch limit needs at least 1 watch per client, was " + perClient);
    }
    this.perClient = perClient;
    this.tokenKeys = tokenKeys;
    this.refused = Counter.builder("setpoint.watches.refused")
        .description("Watches refused because their client had the most open it may")
        .register(meters);
  }

  @Override
  public HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
    RequestHeaders headers = req.headers();
    if (!isWatch(ctx, headers)) {
      return delegate.serve(ctx, req);
    }
    String client = ClientRefusals.client(ctx, headers, tokenKeys);
    int now = open.merge(client, 1, Integer::sum);
    if (now > perClient) {
      release(client);
      refused.increment();
      return ClientRefusals.exhausted(headers,
          "this client has " + perClient + " watches open, the most it may; close one first", 0);
    }
    ctx.log().whenComplete().thenRun(() -> release(client));
    return delegate.serve(ctx, req);
  }

  private void release(String client) {
    open.computeIfPresent(client, (c, n) -> n <= 1 ? null : n - 1);
  }

  private static boolean isWatch(ServiceRequestContext ctx, RequestHeaders headers) {
    if (ClientRefusals.isGrpc(headers)) {
      return ctx.path().equals(GRPC_WATCH);
    }
    if (!ctx.path().startsWith("/api/") || ctx.query() == null) {
      return false;
    }
    String watch = QueryParams.fromQueryString(ctx.query()).get("watch");
    return watch != null && (watch.isEmpty() || watch.equalsIgnoreCase("true"));
  }
}
