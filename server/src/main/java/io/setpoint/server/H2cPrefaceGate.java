package io.setpoint.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Holds back what the agent sends on a connection that a client upgraded from HTTP/1.1 to HTTP/2
 * ({@code Upgrade: h2c}) until that client's connection preface arrives. The JDK's {@code
 * HttpClient} upgrades every plain-HTTP connection this way, and it loses HTTP/2 frames that reach
 * it after the {@code 101} but before it has sent its own preface: when a response was quick and
 * long enough to leave in several writes, its end never arrived, and the call hung until the
 * connection's idle timeout closed it ("EOF reached while reading"), about one new connection in
 * a hundred. Waiting costs such a connection one round trip, once.
 *
 * <p>The gate looks at the connection's first response only and leaves the pipeline when that is
 * not a {@code 101} (HTTP/1.1, HTTP/2 with prior knowledge, gRPC, TLS), when the preface arrives,
 * or after {@code limit} at most, so that a client that never sends one cannot hold a response.
 */
final class H2cPrefaceGate extends ChannelDuplexHandler {
  private static final byte[] SWITCHING_PROTOCOLS = "HTTP/1.1 101 ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEAD_END = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private record Held(Object message, ChannelPromise promise) {}

  private final Duration limit;
  private final ArrayDeque<Held> held = new ArrayDeque<>();
  private boolean holding;
  private int prefaceRead;
  private ScheduledFuture<?> deadline;

  H2cPrefaceGate(Duration limit) {
    this.limit = limit;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (holding) {
      held.add(new Held(msg, promise));
      return;
    }
    if (!(msg instanceof ByteBuf bytes) || !startsWith(bytes, SWITCHING_PROTOCOLS)) {
      ctx.write(msg, promise);
      ctx.pipeline().remove(this);
      return;
    }
    int headEnd = indexOf(bytes, HEAD_END);
    if (headEnd < 0) {
      // Netty writes a response head in one buffer; if that ever changes, let it all through.
      ctx.write(msg, promise);
      ctx.pipeline().remove(this);
      return;
    }
    holding = true;
    deadline = ctx.executor().schedule(() -> open(ctx), limit.toNanos(), TimeUnit.NANOSECONDS);
    int split = headEnd + HEAD_END.length;
    if (split == bytes.writerIndex()) {
      ctx.write(msg, promise);
    } else {
      ctx.write(bytes.retainedSlice(bytes.readerIndex(), split - bytes.readerIndex()), ctx.newPromise());
      held.add(new Held(bytes.retainedSlice(split, bytes.writerIndex() - split), promise));
      bytes.release();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (holding && msg instanceof ByteBuf bytes) {
      int i = bytes.readerIndex();
      while (prefaceRead < CLIENT_PREFACE.length && i < bytes.writerIndex()) {
        if (bytes.getByte(i++) != CLIENT_PREFACE[prefaceRead++]) {
          prefaceRead = CLIENT_PREFACE.length; // not a preface: HTTP/2 answers it, unheld
        }
      }
      ctx.fireChannelRead(msg);
      if (prefaceRead == CLIENT_PREFACE.length) {
        open(ctx);
      }
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    open(ctx); // what was held (a GOAWAY among it) leaves ahead of the close
    ctx.close(promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (deadline != null) {
      deadline.cancel(false);
    }
    Held next;
    while ((next = held.poll()) != null) {
      ReferenceCountUtil.release(next.message());
      next.promise().tryFailure(new ClosedChannelException());
    }
    holding = false;
    ctx.fireChannelInactive();
  }

  /** Sends what was held, in order, and leaves the pipeline. */
  private void open(ChannelHandlerContext ctx) {
    if (!holding) {
      return;
    }
    holding = false;
    deadline.cancel(false);
    Held next;
    while ((next = held.poll()) != null) {
      ctx.write(next.message(), next.promise());
    }
    ctx.flush();
    if (ctx.pipeline().context(this) != null) {
      ctx.pipeline().remove(this);
    }
  }

  private static boolean startsWith(ByteBuf bytes, byte[] prefix) {
    return bytes.readableBytes() >= prefix.length && matches(bytes, bytes.readerIndex(), prefix);
  }

  /** The absolute index in {@code bytes} where {@code part} starts, or -1. */
  private static int indexOf(ByteBuf bytes, byte[] part) {
    for (int at = bytes.readerIndex(); at + part.length <= bytes.writerIndex(); at++) {
      if (matches(bytes, at, part)) {
        return at;
      }
    }
    return -1;
  }

  private static boolean matches(ByteBuf bytes, int at, byte[] part) {
    for (int i = 0; i < part.length; i++) {
      if (bytes.getByte(at + i) != part[i]) {
        return false;
      }
    }
    return true;
  }
}
