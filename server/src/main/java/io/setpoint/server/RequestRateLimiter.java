package io.setpoint.server;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.server.DecoratingHttpServiceFunction;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.setpoint.controller.time.Ticker;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A per-client request rate limit on the API (gRPC calls and {@code /api}): a token bucket per
 * client, refilled at {@code perSecond} and holding at most {@code burst}. The client is its ACL
 * token when the request carries one the agent knows, else its address, so one token flooding
 * cannot take another's share, and made-up tokens buy no buckets of their own. A request over the limit is answered at once, without reaching a service:
 * {@code RESOURCE_EXHAUSTED} for gRPC, {@code 429} with a JSON error for HTTP, both with a {@code
 * Retry-After} of whole seconds until the bucket holds a token again. A watch counts once, when it
 * opens. Probes, {@code /metrics} and the UI's files are not limited.
 */
final class RequestRateLimiter implements DecoratingHttpServiceFunction {
  /** Past this many clients, those whose buckets are full again (idle ones) are forgotten. */
  private static final int TRIM_AT = 10_000;
  private volatile int trimAt = TRIM_AT;

  private final double perNano;
  private final double burst;
  private final Ticker ticker;
  private final Counter refused;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
  private final Function<String, Optional<String>> tokenKeys;

  /**
   * @param perSecond requests per second each client may make on average
   * @param burst requests a client may make at once after being idle
   * @param tokenKeys a name for the holder of a token secret, empty for a secret no token has
   */
  RequestRateLimiter(double perSecond, int burst, Ticker ticker, MeterRegistry meters,
      Function<String, Optional<String>> tokenKeys) {
    if (!(perSecond > 0) || burst < 1) {
      throw new IllegalArgumentException("a rate limit needs a rate above 0 and a burst of at least 1");
    }
    this.perNano = perSecond / 1e9;
    this.burst = burst;
    this.ticker = ticker;
    this.tokenKeys = tokenKeys;
    this.refused = Counter.builder("setpoint.requests.rate.limited")
        .description("Requests refused because their client was over its rate limit")
        .register(meters);
  }

  /** One client's tokens, as of {@code at}. */
  private final class Bucket {
    private double tokens = burst;
    private long at = ticker.read();

    /** Takes a token: 0 when there was one, else the nanoseconds until there is. */
    synchronized long take(long now) {
      tokens = Math.min(burst, tokens + (now - at) * perNano);
      at = now;
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return (long) Math.ceil((1 - tokens) / perNano);
    }

    synchronized boolean idle(long now) {
      return tokens + (now - at) * perNano >= burst;
    }
  }

  @Override
  public HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
    RequestHeaders headers = req.headers();
    if (!ClientRefusals.isGrpc(headers) && !ctx.path().startsWith("/api/")) {
      return delegate.serve(ctx, req);
    }
    long now = ticker.read();
    long wait = bucket(ClientRefusals.client(ctx, headers, tokenKeys), now).take(now);
    if (wait == 0) {
      return delegate.serve(ctx, req);
    }
    refused.increment();
    long retryAfter = Math.max(1, (wait + 999_999_999L) / 1_000_000_000L);
    return ClientRefusals.exhausted(headers, "this client is over its rate limit; retry after " + retryAfter + " s", retryAfter);
  }

  private Bucket bucket(String client, long now) {
    Bucket bucket = buckets.get(client);
    if (bucket != null) {
      return bucket;
    }
    if (buckets.size() >= trimAt) {
      buckets.values().removeIf(b -> b.idle(now));
      // Not again until the map has grown as much once more: a sweep is a pass over every client.
      trimAt = Math.max(TRIM_AT, 2 * buckets.size());
    }
    return buckets.computeIfAbsent(client, c -> new Bucket());
  }
}
