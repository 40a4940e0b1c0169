package io.setpoint.server;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.logging.RequestLogProperty;
import com.linecorp.armeria.server.DecoratingHttpServiceFunction;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's HTTP/1 connections and their requests in progress, so that a stopping agent closes
 * each as soon as it is idle. Armeria gives an idle HTTP/1 client a second to close the connection
 * itself (sparing the server a socket in TIME_WAIT), which was most of a stop. HTTP/2 connections
 * are drained by {@link Http2Connections}.
 */
final class Http1Connections implements DecoratingHttpServiceFunction {
  /** Requests in progress by HTTP/1 connection; a connection leaves the map when it closes. */
  private final Map<Channel, AtomicInteger> inProgress = new ConcurrentHashMap<>();
  /** The agent's: set when it begins to stop. */
  private final AtomicBoolean stopping;

  Http1Connections(AtomicBoolean stopping) {
    this.stopping = stopping;
  }

  @Override
  public HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
    if (!ctx.sessionProtocol().isMultiplex()) {
      Channel channel = ctx.log().ensureAvailable(RequestLogProperty.SESSION).channel();
      if (channel != null) {
        AtomicInteger requests = requestsOn(channel);
        requests.incrementAndGet();
        if (stopping.get()) {
          // The response says "Connection: close", so that the client goes to another agent.
          ctx.initiateConnectionShutdown();
        }
        ctx.log().whenComplete().thenRun(() -> {
          if (requests.decrementAndGet() == 0 && stopping.get()) {
            channel.close();
          }
        });
      }
    }
    return delegate.serve(ctx, req);
  }

  private AtomicInteger requestsOn(Channel channel) {
    AtomicInteger known = inProgress.get(channel);
    if (known != null) {
      return known;
    }
    AtomicInteger created = new AtomicInteger();
    known = inProgress.putIfAbsent(channel, created);
    if (known != null) {
      return known;
    }
    channel.closeFuture().addListener(closed -> inProgress.remove(channel));
    return created;
  }

  /**
   * Closes the HTTP/1 connections that have no request in progress; once the agent is stopping,
   * the others close as their last request ends.
   */
  void closeIdle() {
    inProgress.forEach((channel, requests) -> {
      if (requests.get() == 0) {
        channel.close();
      }
    });
  }
}
