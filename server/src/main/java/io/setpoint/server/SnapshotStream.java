package io.setpoint.server;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.setpoint.api.operator.v1.SnapshotChunk;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes of a snapshot file, cut into {@link SnapshotChunk}s as they are written and sent as
 * fast as the client reads them: at most {@link #MAX_QUEUED} chunks wait, and the writer waits
 * while they do, so a save holds a few MiB however large the store and however slow the download.
 *
 * <p>gRPC delivers "ready" on the call's own serial executor, the one running the service method,
 * so the method must not write the file itself (it would wait for a ready event that cannot come):
 * a thread of its own writes, and the ready handler and the writer both send what is queued.
 * Every call on {@code call} is made under {@link #lock}, as gRPC needs them serialised.
 */
final class SnapshotStream extends OutputStream {
  /** Bytes per chunk: well under gRPC's default 4 MiB message limit. */
  static final int CHUNK = 1 << 20;
  /** Chunks that may wait to be sent before the writer waits too. */
  static final int MAX_QUEUED = 4;

  private final ServerCallStreamObserver<SnapshotChunk> call;
  private final Runnable ended;
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a chunk was sent or the call ended. */
  private final Condition sentOrEnded = lock.newCondition();
  private final Queue<ByteString> chunks = new ArrayDeque<>();
  private ByteString.Output current = ByteString.newOutput(CHUNK);
  private boolean finished;
  private boolean done;

  /**
   * @param ended run once when the call ends, however: sent whole, failed or cancelled
   */
  SnapshotStream(ServerCallStreamObserver<SnapshotChunk> call, Runnable ended) {
    this.call = call;
    this.ended = ended;
    call.setOnReadyHandler(this::drain);
    call.setOnCancelHandler(this::cancelled);
  }

  @Override
  public void write(int b) throws IOException {
    if (current.size() == CHUNK) {
      cut();
    }
    current.write(b);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
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

  /** Queues the chunk written so far, waiting while {@link #MAX_QUEUED} wait to be sent. */
  private void cut() throws IOException {
    lock.lock();
    try {
      while (chunks.size() >= MAX_QUEUED && !done) {
        sentOrEnded.await();
      }
      if (done) {
        throw new IOException("the client stopped reading the snapshot");
      }
      chunks.add(current.toByteString());
      current = ByteString.newOutput(CHUNK);
      drain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while the client was reading the snapshot");
    } finally {
      lock.unlock();
    }
  }

  /** The whole file is written: the call ends once every chunk is sent. */
  void finish() throws IOException {
    if (current.size() > 0) {
      cut();
    }
    lock.lock();
    try {
      finished = true;
      drain();
    } finally {
      lock.unlock();
    }
  }

  /** Writing failed: the call ends with {@code status} (what was sent is no file to keep). */
  void fail(Status status) {
    lock.lock();
    try {
      if (!done) {
        end();
        call.onError(status.asRuntimeException());
      }
    } finally {
      lock.unlock();
    }
  }

  private void drain() {
    lock.lock();
    try {
      while (!done && !chunks.isEmpty() && call.isReady()) {
        call.onNext(SnapshotChunk.newBuilder().setData(chunks.poll()).build());
        sentOrEnded.signalAll();
      }
      if (!done && finished && chunks.isEmpty()) {
        end();
        call.onCompleted();
      }
    } finally {
      lock.unlock();
    }
  }

  private void cancelled() {
    lock.lock();
    try {
      if (!done) {
        end();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Under {@link #lock}. */
  private void end() {
    done = true;
    chunks.clear();
    sentOrEnded.signalAll();
    ended.run();
  }
}
