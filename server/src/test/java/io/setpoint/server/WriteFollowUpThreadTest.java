package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.memory.MemoryBackend;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The synchronous write runs what waits on the store after a commit (here the orphan check of a
 * new child, a linearizable read) off the thread that completed the commit. A replicated store
 * completes its commits on its connection's thread, and a read waits for an answer on that very
 * thread: run there, the write would wait for itself.
 */
class WriteFollowUpThreadTest {
  private final ExecutorService connection = Executors.newSingleThreadExecutor(r -> new Thread(r, "connection"));
  private final OneConnection store = new OneConnection(new MemoryBackend(), connection);
  private final ResourceHandler handler = DemoHandlers.over(store);

  @AfterEach
  void close() {
    connection.shutdownNow();
  }

  @Test
  @Timeout(30)
  void aChildsOrphanCheckRunsOffTheThreadThatCompletedItsCommit() {
    Resource artist = write(DemoHandlers.nina());

    Resource album = write(DemoHandlers.albumOf(artist.getId()));

    assertThat(store.listByOwner(artist.getId())).containsExactly(album);
    assertThat(store.readsOnTheConnection).as("strong reads made on the connection's own thread").isZero();
  }

  private Resource write(Resource resource) {
    return DemoHandlers.write(handler, resource);
  }


  /**
   * A store like a replicated one seen from a member: commits complete on one connection thread,
   * and a strong read waits for that thread to answer it.
   */
  private static final class OneConnection extends ForwardingBackend {
    private final ExecutorService connection;
    volatile int readsOnTheConnection;

    OneConnection(MemoryBackend delegate, ExecutorService connection) {
      super(delegate);
      this.connection = connection;
    }

    @Override
    public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence, String requestId) {
      return CompletableFuture.supplyAsync(() -> writeCas(resource, fence, requestId), connection);
    }

    @Override
    public Resource read(Consistency consistency, ID id) {
      if (consistency != Consistency.STRONG) {
        return super.read(consistency, id);
      }
      if (Thread.currentThread().getName().equals("connection")) {
        readsOnTheConnection++;
      }
      CompletableFuture<Void> barrier = CompletableFuture.runAsync(() -> {}, connection);
      try {
        barrier.get(Duration.ofSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        throw new io.setpoint.storage.StorageException(
            io.setpoint.storage.StorageException.Reason.UNAVAILABLE, "strong read timed out (no answer from the connection)");
      }
      return super.read(consistency, id);
    }
  }
}
