package io.setpoint.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.setpoint.controller.time.Ticker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the agent's client connections within its {@link ConnectionLimits}: first in every
 * accepted connection's pipeline, it admits the connection or closes it at once with a reset, before
 * anything is read from it. Refusals are counted in {@code setpoint.connections.refused} (tagged
 * with the limit) and logged at most once per {@link #LOG_INTERVAL}.
 */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectionLimiter.class);
  static final Duration LOG_INTERVAL = Duration.ofSeconds(10);

  /** The limit a connection was refused for. */
  private enum Limit {
    TOTAL("total"),
    PER_CLIENT("per_client");

    final String tag;

    Limit(String tag) {
      this.tag = tag;
    }
  }

  private final ConnectionLimits limits;
  private final Ticker ticker;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<InetAddress, Integer> perClient = new ConcurrentHashMap<>();
  private final Map<Limit, Counter> refused = new ConcurrentHashMap<>();
  private final LongAdder unlogged = new LongAdder();
  private final AtomicLong nextLog;

  ConnectionLimiter(ConnectionLimits limits, MeterRegistry meters, Ticker ticker) {
    this.limits = limits;
    this.ticker = ticker;
    this.nextLog = new AtomicLong(ticker.read());
    for (Limit limit : Limit.values()) {
      refused.put(limit, Counter.builder("setpoint.connections.refused")
          .description("Client connections closed on arrival to stay within the connection limits")
          .tag("limit", limit.tag)
          .register(meters));
    }
    Gauge.builder("setpoint.connections.open", open, AtomicInteger::get)
        .description("Client connections open on the API port")
        .register(meters);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Channel channel = ctx.channel();
    InetAddress client = channel.remoteAddress() instanceof InetSocketAddress socket ? socket.getAddress() : null;
    Limit over = admit(client);
    if (over == null) {
      channel.closeFuture().addListener(closed -> release(client));
      ctx.pipeline().remove(this);
      ctx.fireChannelActive();
      return;
    }
    // A reset rather than a graceful close: the client learns at once, and no TIME_WAIT lingers.
    channel.config().setOption(ChannelOption.SO_LINGER, 0);
    channel.close();
    refused.get(over).increment();
    maybeLog(over, client);
  }

  /** Counts the connection in, or names the limit it would break (counting nothing). */
  private Limit admit(InetAddress client) {
    if (open.incrementAndGet() > limits.total()) {
      open.decrementAndGet();
      return Limit.TOTAL;
    }
    if (client == null) {
      return null;
    }
    boolean[] admitted = {false};
    perClient.compute(client, (address, count) -> {
      int now = count == null ? 0 : count;
      if (now >= limits.perClient()) {
        return count;
      }
      admitted[0] = true;
      return now + 1;
    });
    if (!admitted[0]) {
      open.decrementAndGet();
      return Limit.PER_CLIENT;
    }
    return null;
  }

  private void release(InetAddress client) {
    if (client != null) {
      perClient.computeIfPresent(client, (address, count) -> count == 1 ? null : count - 1);
    }
    open.decrementAndGet();
  }

  /** One line for the first refusal, then at most one per interval with the count since the last. */
  private void maybeLog(Limit over, InetAddress client) {
    unlogged.increment();
    long now = ticker.read();
    long due = nextLog.get();
    if (now - due >= 0 && nextLog.compareAndSet(due, now + LOG_INTERVAL.toNanos())) {
      log.warn("Refused {} connection(s) to stay within the connection limits ({} in all, {} per client address;"
              + " the last from {}, over the {} limit); see -max-connections and -max-connections-per-client",
          unlogged.sumThenReset(), limits.total(), limits.perClient(),
          client == null ? "an unknown address" : client.getHostAddress(), over == Limit.TOTAL ? "total" : "per-client");
    }
  }
}
