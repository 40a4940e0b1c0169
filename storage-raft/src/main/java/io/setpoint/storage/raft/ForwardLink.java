package io.setpoint.storage.raft;

import io.setpoint.storage.raft.v1.ForwardAnswer;
import io.setpoint.storage.raft.v1.ForwardCall;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.thirdparty.io.grpc.CallOptions;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.netty.NegotiationType;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.ClientCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;

/**
 * One connection and forward stream from this member to one other ({@link ForwardClient}'s): sends
 * calls on it, hands the answers back, and tells when the stream ended.
 */
final class ForwardLink implements StreamObserver<ForwardAnswer> {
  /** What a link hands back to its client. */
  interface Client {
    /** {@code from} received {@code answer}. */
    void answered(ForwardLink from, ForwardAnswer answer);

    /** The stream on {@code from} ended, with {@code cause} or (null) closed by the other end. */
    void ended(ForwardLink from, Throwable cause);
  }

  final RaftPeer peer;
  final ManagedChannel channel;
  private final Client client;
  private final long graceNanos;
  /** Not thread-safe: every call is under this link's lock. */
  private final StreamObserver<ForwardCall> calls;
  /** Guarded by this link's lock, read without it to choose a link (a stale read only costs a retry). */
  volatile boolean broken;
  /** When another member was first seen leading; only the client's expiry check uses it. */
  private long deposedAt;
  private boolean deposed;

  /** @param graceNanos how long a batch may wait for its answer once another member leads */
  ForwardLink(RaftPeer peer, ForwardClient.Transport transport, long graceNanos, Client client) {
    this.peer = peer;
    this.client = client;
    this.graceNanos = graceNanos;
    NettyChannelBuilder builder = NettyChannelBuilder.forTarget(peer.getAddress())
        // Members talk to each other directly, never through an HTTP proxy.
        .proxyDetector(address -> null)
        .disableRetry()
        // Answers are handled on the connection's thread: completing one only hands it on.
        .directExecutor()
        .maxInboundMessageSize(transport.maxMessageBytes())
        .flowControlWindow(transport.flowControlWindowBytes());
    if (transport.tls() != null) {
      builder.useTransportSecurity().sslContext(transport.tls());
    } else {
      builder.negotiationType(NegotiationType.PLAINTEXT);
    }
    channel = builder.build();
    calls = ClientCalls.asyncBidiStreamingCall(channel.newCall(ForwardService.FORWARD, CallOptions.DEFAULT), this);
  }

  /**
   * Sends {@code call} after {@code awaiting} registered it for its answer; false, with neither
   * done, when this link no longer sends. Under the lock {@link #ended} takes, so a call is either
   * sent before the stream ended and then told of by {@link Client#ended}, or not sent at all.
   *
   * @param unsent told when sending threw; the call may still have reached the other end
   */
  synchronized boolean send(ForwardCall call, Runnable awaiting, Consumer<RuntimeException> unsent) {
    if (broken) {
      return false;
    }
    awaiting.run();
    try {
      calls.onNext(call);
    } catch (RuntimeException e) {
      unsent.accept(e);
    }
    return true;
  }

  /**
   * Whether {@code leading}, another member, has led for longer than the grace period, counted
   * from the first time it was seen; a moment without any leader does not count as either.
   */
  boolean outlived(RaftPeer leading, long now) {
    if (leading == null) {
      return false;
    }
    if (leading.getId().equals(peer.getId())) {
      deposed = false;
      return false;
    }
    if (!deposed) {
      deposed = true;
      deposedAt = now;
    }
    return now - deposedAt > graceNanos;
  }

  /** No more calls go this way; the other end ends the stream once it has answered those on it. */
  synchronized void retire() {
    if (!broken) {
      broken = true;
      calls.onCompleted();
    }
    channel.shutdown();
  }

  @Override
  public void onNext(ForwardAnswer answer) {
    client.answered(this, answer);
  }

  @Override
  public void onError(Throwable t) {
    ended(t);
  }

  @Override
  public void onCompleted() {
    ended(null);
  }

  private void ended(Throwable cause) {
    synchronized (this) {
      broken = true;
    }
    channel.shutdown();
    client.ended(this, cause);
  }
}
