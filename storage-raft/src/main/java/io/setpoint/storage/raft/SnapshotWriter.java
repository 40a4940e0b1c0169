package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.StoreEngine;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the state machine's snapshots on a thread of their own, so that applying goes on while
 * one is written. The apply thread only notes the revision and log position and copies the
 * references of the retained history (whose entries never change once made); the writer reads the
 * store as of that revision from its version chains ({@link StoreEngine.Image#forEachLive}), which
 * later writes leave alone. If the history that revision needs is cut before the walk ends (writes
 * outran the writer), the next snapshot copies the live set on the apply thread instead, as a
 * snapshot must eventually succeed for the log to be purged.
 *
 * <p>Ratis learns of a snapshot when it next asks for one: {@link #take} answers the index of the
 * snapshot finished since, and until then that no snapshot was taken.
 *
 * <p>Ratis asks every so many log entries whatever the store's size, and each snapshot writes the
 * whole store: at a million resources, a snapshot every few thousand writes kept a core and the
 * disk busy rewriting it. A snapshot therefore also waits for writes amounting to an eighth of the
 * keys the store holds, so that writing snapshots costs at most eight resources written per write,
 * and a restart replays at most that eighth from the log.
 */
final class SnapshotWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SnapshotWriter.class);
  /** How long closing, or loading another snapshot, waits for a snapshot being written. */
  private static final long AWAIT_SECONDS = 120;
  /** A snapshot waits for writes amounting to the store's keys divided by this. */
  static final long WRITES_PER_SNAPSHOT_SHARE = 8;

  /** The writer's own thread, or null when a test runs the writes. */
  private final ExecutorService thread;
  private final Executor executor;
  private final RaftActivity activity;
  private final Consumer<SingleFileSnapshotInfo> written;
  /** The index of a snapshot finished and not yet reported to Ratis, or INVALID_LOG_INDEX. */
  private final AtomicLong finished = new AtomicLong(RaftLog.INVALID_LOG_INDEX);
  /** Set by the writer when a walk lost its revision to compaction; read on the apply thread. */
  private volatile boolean copyOnApplyThread;
  /** Only the apply thread starts and replaces it. */
  private volatile CompletableFuture<Void> writing = CompletableFuture.completedFuture(null);
  /** The store revision of the last snapshot started; the apply thread's alone. */
  private long lastRevision;

  /** @param written told of each snapshot once its file and checksum are on disk */
  SnapshotWriter(RaftActivity activity, Consumer<SingleFileSnapshotInfo> written) {
    this(activity, written, Executors.newSingleThreadExecutor(
        Thread.ofPlatform().name("setpoint-snapshot-writer").daemon().factory()));
  }

  /** Writes on {@code executor}: tests choose when a write runs. */
  SnapshotWriter(RaftActivity activity, Consumer<SingleFileSnapshotInfo> written, Executor executor) {
    this.activity = activity;
    this.written = written;
    this.executor = executor;
    this.thread = executor instanceof ExecutorService owned ? owned : null;
  }

  /**
   * On the apply thread, with the store at {@code last}: answers the index of a snapshot finished
   * since the previous call; otherwise starts writing one of the store as it is now to {@code file},
   * unless one is being written, and answers INVALID_LOG_INDEX.
   */
  long take(TermIndex last, ReplicatedStore store, File file) {
    long done = finished.getAndSet(RaftLog.INVALID_LOG_INDEX);
    if (done != RaftLog.INVALID_LOG_INDEX) {
      return done;
    }
    if (!writing.isDone() || !due(store.engine().revision(), store.engine().keyCount())) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    // The image copies references only; the live set is copied here only after a walk lost its revision.
    StoreEngine.Image image = store.engine().image();
    List<ByteString> copied = null;
    if (copyOnApplyThread) {
      copied = new ArrayList<>();
      store.engine().forEachLive(copied::add);
    }
    List<ByteString> live = copied;
    lastRevision = image.revision();
    long started = System.nanoTime();
    writing = CompletableFuture.runAsync(() -> write(last, image, live, file, started), executor);
    return RaftLog.INVALID_LOG_INDEX;
  }

  /**
   * Whether a store at {@code revision} holding {@code keys} keys has seen writes enough since the
   * last snapshot for another: an eighth of its keys.
   */
  boolean due(long revision, long keys) {
    return revision - lastRevision >= keys / WRITES_PER_SNAPSHOT_SHARE;
  }

  private void write(TermIndex last, StoreEngine.Image image, List<ByteString> copied, File file, long started) {
    long revision = image.revision();
    List<ByteString> live = copied;
    if (live == null) {
      live = new ArrayList<>();
      try {
        image.forEachLive(live::add);
      } catch (StorageException e) {
        copyOnApplyThread = true;
        log.info("writes outran the snapshot of revision {} ({}); the next one is copied while applying waits",
            revision, e.getMessage());
        return;
      }
    }
    copyOnApplyThread = false;
    try {
      // On failure (a full disk, say) this removes its temporary file and leaves any earlier one.
      SnapshotFile.write(file.toPath(), new SnapshotFile.Contents(revision, live, image.requests(), image.history()));
      MD5Hash md5;
      try {
        md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
      } catch (RuntimeException e) {
        // A snapshot without its checksum is not one to start from; the next attempt writes it anew.
        Files.deleteIfExists(file.toPath());
        Files.deleteIfExists(MD5FileUtil.getDigestFileForFile(file).toPath());
        throw new IOException("saving the checksum of the snapshot " + file + " failed", e);
      }
      written.accept(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
      finished.set(last.getIndex());
      activity.snapshotTaken(System.nanoTime() - started);
      log.debug("snapshot of {} resources at revision {} as of log {}", live.size(), revision, last);
    } catch (IOException | RuntimeException e) {
      // Ratis asks again after its next entries; the earlier snapshot and the log stay as they are.
      log.warn("writing the snapshot {} failed: {}", file, e.toString());
    }
  }

  /**
   * Waits for a snapshot being written to end, and forgets one finished and not yet reported: a
   * snapshot about to be loaded over the store supersedes it, and Ratis must never hear of an
   * index below the one it loads.
   *
   * @return false when the writer is still busy after two minutes (or this thread was interrupted)
   */
  boolean awaitAndForget() {
    try {
      writing.get(AWAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      log.warn("the snapshot being written failed: {}", e.getCause().toString());
    }
    finished.set(RaftLog.INVALID_LOG_INDEX);
    return true;
  }

  @Override
  public void close() {
    if (!awaitAndForget()) {
      log.warn("closing while a snapshot is still being written; it is left unfinished");
    }
    if (thread != null) {
      thread.shutdownNow();
    }
  }
}
