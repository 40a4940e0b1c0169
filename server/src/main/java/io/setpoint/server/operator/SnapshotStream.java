package io.setpoint.server.operator;

import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import io.setpoint.api.operator.v1.SnapshotChunk;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * The bytes of a snapshot file, cut into {@link SnapshotChunk}s as they are written, then sent as
 * fast as the client reads them: each chunk only when the call is ready for more, so a slow
 * download waits in this queue rather than in the transport's buffers.
 *
 * <p>gRPC delivers "ready" on the call's own serial executor, the one running the service method,
 * so the method must not wait for it: it fills the queue and returns, and the ready handler sends.
 * The whole file is in the queue meanwhile, one copy per save in progress, which is why the
 * service runs one save at a time.
 */
final class SnapshotStream extends OutputStream {
  /** Bytes per chunk: well under gRPC's default 4 MiB message limit. */
  static final int CHUNK = 1 << 20;

  private final Queue<ByteString> chunks = new ArrayDeque<>();
  private ByteString.Output current = ByteString.newOutput(CHUNK);
  private ServerCallStreamObserver<SnapshotChunk> call;
  private boolean done;
  private Runnable sent;

  @Override
  public void write(int b) {
    if (current.size() == CHUNK) {
      cut();
    }
    current.write(b);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    while (len > 0) {
      if (current.size() == CHUNK) {
        cut();
      }
      int n = Math.min(len, CHUNK - current.size());
      current.write(b, off, n);
      off += n;
      len -= n;
    }
  }

  private void cut() {
    chunks.add(current.toByteString());
    current = ByteString.newOutput(CHUNK);
  }

  /**
   * Sends every chunk written, then ends the call and runs {@code sent}; call once, from the
   * service method.
   */
  void send(ServerCallStreamObserver<SnapshotChunk> call, Runnable sent) {
    if (current.size() > 0) {
      cut();
    }
    this.call = call;
    this.sent = sent;
    call.setOnReadyHandler(this::drain);
    drain();
  }

  private synchronized void drain() {
    while (!done && call.isReady() && !call.isCancelled()) {
      ByteString next = chunks.poll();
      if (next == null) {
        // The handler stays: the call is frozen once the service method has returned, and a
        // ready event after this finds done set.
        done = true;
        chunks.clear();
        call.onCompleted();
        sent.run();
        return;
      }
      call.onNext(SnapshotChunk.newBuilder().setData(next).build());
    }
  }
}
