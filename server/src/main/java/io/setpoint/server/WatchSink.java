package io.setpoint.server;

import io.grpc.StatusRuntimeException;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;

/**
 * Where {@link WatchStreamer} delivers the events of a watch: a gRPC stream, or the server-sent
 * events of the HTTP gateway. Implementations tell the streamer when their consumer can take more
 * (flow control) and when it has gone away.
 */
interface WatchSink {
  /** Runs {@code action} once the consumer has gone away. Called once, before any event is sent. */
  void onCancel(Runnable action);

  /** True once the consumer has gone away. */
  boolean isCancelled();

  /** True when the consumer can take an event now. */
  boolean isReady();

  /** Waits at most {@code timeout} for the consumer to become ready; may return early. */
  void awaitReady(Duration timeout) throws InterruptedException;

  /** Delivers one event. */
  void send(WatchEvent event);

  /** Ends the stream with {@code error}. */
  void fail(StatusRuntimeException error);
}
