package io.setpoint.server;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.logging.RequestLogProperty;
import com.linecorp.armeria.server.DecoratingHttpServiceFunction;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's HTTP/2 connections (gRPC's among them), so that a stopping agent closes each as soon
 * as its client knows to go elsewhere. Armeria gives an idle one a second before closing it, which
 * was most of a stop; closing it at once would race a stream the client had just sent, and that
 * call would fail. Instead each connection gets a GOAWAY that still admits every stream, then a
 * PING. A client answers the PING only after it has read the GOAWAY, and opens no stream after
 * that, so once the answer arrives every stream it opened here has arrived too: the connection then
 * gets the final GOAWAY, naming its last stream, and closes as soon as those are answered. A client
 * that never answers is closed by Armeria's own stop, a second later.
 *
 * <p>Draining starts as the agent begins to stop, so that clients stop sending here before Armeria
 * ends the requests it finds in progress once its quiet period is over. A connection made while the
 * port is still open is drained at its first request.
 */
final class Http2Connections implements DecoratingHttpServiceFunction {
  /** The payload of the drain PING, told apart from Armeria's keep-alive PINGs: "Setpoint". */
  static final long DRAIN_PING = 0x5365_7470_6f69_6e74L;

  private final Set<Channel> open = ConcurrentHashMap.newKeySet();
  private volatile boolean draining;

  /** Tracks a connection from when it is accepted until it closes. */
  void track(Channel channel) {
    open.add(channel);
    channel.closeFuture().addListener(closed -> open.remove(channel));
  }

  /** Starts draining every HTTP/2 connection, and those that send a request from now on. */
  void drain() {
    draining = true;
    for (Channel channel : open) {
      channel.eventLoop().execute(() -> drain(channel));
    }
  }

  @Override
  public HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
    if (draining && ctx.sessionProtocol().isMultiplex()) {
      Channel channel = ctx.log().ensureAvailable(RequestLogProperty.SESSION).channel();
      if (channel != null) {
        channel.eventLoop().execute(() -> drain(channel));
      }
    }
    return delegate.serve(ctx, req);
  }

  private static void drain(Channel channel) {
    ChannelHandlerContext ctx = channel.pipeline().context(Http2ConnectionHandler.class);
    if (ctx == null || !channel.isActive()) {
      return; // HTTP/1, or closed already
    }
    Http2ConnectionHandler handler = (Http2ConnectionHandler) ctx.handler();
    if (handler.connection().goAwaySent()) {
      return; // Armeria is closing it already
    }
    Http2ConnectionDecoder decoder = handler.decoder();
    decoder.frameListener(new Http2FrameListenerDecorator(decoder.frameListener()) {
      @Override
      public void onPingAckRead(ChannelHandlerContext readCtx, long data) throws Http2Exception {
        if (data != DRAIN_PING) {
          super.onPingAckRead(readCtx, data);
          return;
        }
        handler.goAway(ctx, handler.connection().remote().lastStreamCreated(), Http2Error.NO_ERROR.code(),
            Unpooled.EMPTY_BUFFER, ctx.newPromise());
        ctx.flush();
        closeOnceAnswered(handler.connection(), channel);
      }
    });
    handler.goAway(ctx, Integer.MAX_VALUE, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
    handler.encoder().writePing(ctx, false, DRAIN_PING, ctx.newPromise());
    ctx.flush();
  }

  /**
   * Closes the connection once its last stream has been answered. Not before: Armeria closes the
   * streams still open when a stopping server closes a connection, unanswered.
   */
  private static void closeOnceAnswered(Http2Connection connection, Channel channel) {
    if (connection.numActiveStreams() == 0) {
      channel.close();
      return;
    }
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        if (connection.numActiveStreams() == 0) {
          channel.close();
        }
      }
    });
  }
}
