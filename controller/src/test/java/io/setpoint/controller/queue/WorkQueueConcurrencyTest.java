package io.setpoint.controller.queue;

import static io.setpoint.controller.queue.Priority.HIGH;
import static io.setpoint.controller.queue.Queues.EVENT;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Blocking takers, wake-ups, shutdown and drain, and many threads at once. */
@Timeout(value = 30, unit = SECONDS)
class WorkQueueConcurrencyTest {
  private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private Future<WorkQueue.Item<String>> takeInBackground(WorkQueue<String> q) {
    return pool.submit(q::take);
  }

  private static void awaitWaiting(Future<?> taker) {
    // A taker that has not returned after a moment is blocked; there is no way to observe the
    // condition wait itself, so this only proves it did not return early.
    await().during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(2)).until(() -> !taker.isDone());
  }

  @Test
  void aBlockedTakerWakesOnAdd() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    Future<WorkQueue.Item<String>> taker = takeInBackground(q);
    awaitWaiting(taker);
    q.add("a", EVENT, HIGH);
    assertThat(taker.get(5, SECONDS).key()).isEqualTo("a");
  }

  @Test
  void aBlockedTakerWakesWhenAManualTickerMakesAKeyDue() throws Exception {
    ManualTicker ticker = new ManualTicker();
    WorkQueue<String> q = WorkQueue.<String>builder().ticker(ticker).build();
    q.addAfter("a", Duration.ofHours(1), EVENT, HIGH);
    Future<WorkQueue.Item<String>> taker = takeInBackground(q);
    awaitWaiting(taker);
    ticker.advance(Duration.ofMinutes(59));
    awaitWaiting(taker);
    ticker.advance(Duration.ofMinutes(1));
    WorkQueue.Item<String> item = taker.get(5, SECONDS);
    assertThat(item.key()).isEqualTo("a");
    assertThat(item.takenAt()).isEqualTo(Duration.ofHours(1).toNanos());
  }

  @Test
  void aBlockedTakerWakesWhenARealDelayComesDue() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    long start = System.nanoTime();
    q.addAfter("a", Duration.ofMillis(30), EVENT, HIGH);
    WorkQueue.Item<String> item = takeInBackground(q).get(5, SECONDS);
    assertThat(item.key()).isEqualTo("a");
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(30).toNanos());
  }

  @Test
  void anEarlierDelayedAddWakesTheTakerSleepingForALaterOne() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    q.addAfter("late", Duration.ofMinutes(10), EVENT, HIGH);
    Future<WorkQueue.Item<String>> taker = takeInBackground(q);
    awaitWaiting(taker);
    q.addAfter("soon", Duration.ofMillis(20), EVENT, HIGH);
    assertThat(taker.get(5, SECONDS).key()).isEqualTo("soon");
  }

  @Test
  void pollGivesUpAfterItsTimeout() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().ticker(new ManualTicker()).build();
    long start = System.nanoTime();
    assertThat(q.poll(Duration.ofMillis(20))).isNull();
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
    assertThat(q.poll(Duration.ZERO)).isNull();
  }

  @Test
  void shutdownReleasesEveryBlockedTaker() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    q.addAfter("later", Duration.ofMinutes(1), EVENT, HIGH);
    List<Future<WorkQueue.Item<String>>> takers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      takers.add(takeInBackground(q));
    }
    takers.forEach(WorkQueueConcurrencyTest::awaitWaiting);
    q.shutDown();
    for (Future<WorkQueue.Item<String>> taker : takers) {
      assertThat(taker.get(5, SECONDS)).isNull();
    }
    assertThat(q.take()).isNull();
  }

  @Test
  void interruptStopsATaker() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread taker =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    q.take();
                  } catch (Throwable t) {
                    thrown.set(t);
                  }
                });
    await().atMost(Duration.ofSeconds(5)).until(() -> taker.getState() == Thread.State.WAITING);
    taker.interrupt();
    taker.join(Duration.ofSeconds(5));
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
  }

  @Test
  void drainWaitsForItemsInFlight() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    q.add("a", EVENT, HIGH);
    q.add("b", EVENT, HIGH);
    WorkQueue.Item<String> item = q.take();
    CountDownLatch draining = new CountDownLatch(1);
    Future<Boolean> drain =
        pool.submit(
            () -> {
              draining.countDown();
              return q.shutDownAndDrain(Duration.ofSeconds(10));
            });
    draining.await();
    await().atMost(Duration.ofSeconds(5)).until(q::isShutDown);
    assertThat(q.take()).as("nothing more is handed out").isNull();
    assertThat(drain.isDone()).isFalse();
    q.done(item.key());
    assertThat(drain.get(5, SECONDS)).isTrue();
  }

  @Test
  void drainGivesUpAfterItsTimeout() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().build();
    q.add("a", EVENT, HIGH);
    q.take();
    assertThat(q.shutDownAndDrain(Duration.ofMillis(20))).isFalse();
    assertThat(q.inFlight()).isEqualTo(1);
    assertThat(WorkQueue.<String>builder().build().shutDownAndDrain(Duration.ZERO)).isTrue();
  }

  @Test
  void manyProducersAndWorkersNeverOverlapAndNeverLoseAnUpdate() throws Exception {
    int keys = 50;
    int producers = 4;
    int addsPerProducer = 20_000;
    int workers = 8;
    WorkQueue<Integer> q = WorkQueue.<Integer>builder().tenant(k -> "t" + (k % 3)).build();
    AtomicLong[] version = new AtomicLong[keys];
    long[] processedVersion = new long[keys]; // written only by the (exclusive) holder of the key
    for (int k = 0; k < keys; k++) {
      version[k] = new AtomicLong();
    }
    Map<Integer, Thread> holders = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger processed = new AtomicInteger();

    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      running.add(
          pool.submit(
              () -> {
                WorkQueue.Item<Integer> item;
                while ((item = q.take()) != null) {
                  int k = item.key();
                  if (holders.putIfAbsent(k, Thread.currentThread()) != null) {
                    overlaps.incrementAndGet();
                  }
                  processedVersion[k] = version[k].get();
                  if ((processed.incrementAndGet() & 7) == 0) {
                    Thread.yield();
                  }
                  holders.remove(k);
                  q.done(k);
                }
                return null;
              }));
    }
    List<Future<?>> producing = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      producing.add(
          pool.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < addsPerProducer; i++) {
                  int k = random.nextInt(keys);
                  version[k].incrementAndGet();
                  Priority priority = random.nextBoolean() ? HIGH : Priority.LOW;
                  if (random.nextInt(10) == 0) {
                    q.addAfter(k, Duration.ofNanos(random.nextInt(200_000)), EVENT, priority);
                  } else {
                    q.add(k, EVENT, priority);
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : producing) {
      f.get(20, SECONDS);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> q.depth() == 0 && q.delayed() == 0 && q.inFlight() == 0);
    assertThat(q.shutDownAndDrain(Duration.ofSeconds(5))).isTrue();
    for (Future<?> f : running) {
      f.get(5, SECONDS);
    }
    q.checkInvariants();
    assertThat(overlaps).hasValue(0);
    // The workers' futures completed, so their writes to processedVersion are visible here.
    for (int k = 0; k < keys; k++) {
      assertThat(processedVersion[k]).as("key %d saw its last update", k).isEqualTo(version[k].get());
    }
    assertThat(processed.get()).isLessThanOrEqualTo(producers * addsPerProducer);
  }
}
