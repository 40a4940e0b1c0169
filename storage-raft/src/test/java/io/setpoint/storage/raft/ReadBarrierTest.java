package io.setpoint.storage.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ReadBarrierTest {
  private final List<CompletableFuture<Void>> sent = new ArrayList<>();
  private final ReadBarrier barrier =
      new ReadBarrier(
          () -> {
            CompletableFuture<Void> f = new CompletableFuture<>();
            sent.add(f);
            return f;
          });

  @Test
  void aReaderIsNeverReleasedByABarrierSentBeforeItArrived() {
    CompletableFuture<Void> first = barrier.await();
    CompletableFuture<Void> second = barrier.await();
    CompletableFuture<Void> third = barrier.await();
    assertThat(sent).as("one barrier in flight at a time").hasSize(1);

    sent.getFirst().complete(null);
    assertThat(first).isCompleted();
    assertThat(second).as("arrived after the first barrier was sent").isNotCompleted();
    assertThat(sent).as("the waiting readers' barrier went out").hasSize(2);

    sent.get(1).complete(null);
    assertThat(second).isCompleted();
    assertThat(third).as("readers that queued together share one barrier").isCompleted();
    assertThat(sent).hasSize(2);
  }

  @Test
  void aFailedBarrierFailsItsReadersAndTheNextOneStillGoes() {
    CompletableFuture<Void> first = barrier.await();
    CompletableFuture<Void> second = barrier.await();
    sent.getFirst().completeExceptionally(new IllegalStateException("no leader"));
    assertThat(first).isCompletedExceptionally();
    sent.get(1).complete(null);
    assertThat(second).isCompleted();
    CompletableFuture<Void> later = barrier.await();
    assertThat(sent).hasSize(3);
    sent.get(2).complete(null);
    assertThat(later).isCompleted();
  }
}
