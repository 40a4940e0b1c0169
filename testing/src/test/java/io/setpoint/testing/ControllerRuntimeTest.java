package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.core.v1.Event;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.ReconcileContext;
import io.setpoint.controller.Reconciler;
import io.setpoint.controller.Result;
import io.setpoint.controller.TerminalException;
import io.setpoint.controller.predicate.Predicates;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.CoreTypes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The controller runtime's contract, through a real agent: retries with backoff on a manual
 * ticker, requeue-after, terminal errors, predicates, timeouts, initializers and the unit tier.
 */
class ControllerRuntimeTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final ManualTicker ticker = new ManualTicker();
  private final List<Attempt> attempts = new CopyOnWriteArrayList<>();

  /** What one reconcile saw. */
  record Attempt(List<Trigger> triggers, int retries, boolean cancelled) {
    boolean causedBy(Trigger.Kind kind) {
      return triggers.stream().anyMatch(t -> t.kind() == kind);
    }
  }

  private SetpointExtension start(Function<Controller.Builder, Controller.Builder> configure, Reconciler reconciler) {
    Controller controller = configure.apply(Controller.forType(DemoTypes.RECORD_LABEL).named("test-labels"))
        .reconciler((ctx, tools, req) -> {
          try {
            return reconciler.reconcile(ctx, tools, req);
          } finally {
            attempts.add(new Attempt(ctx.triggers(), ctx.retries(), ctx.isCancelled()));
          }
        });
    SetpointExtension setpoint = SetpointExtension.builder()
        .agent(agent -> agent.types(DemoTypes::register)
            .controllers(manager -> manager.register(controller))
            .ticker(ticker))
        .build();
    setpoint.beforeEach(null);
    return setpoint;
  }

  private static Resource label(SetpointExtension setpoint, String name, String description) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName("Label").setDescription(description).build()))
        .build());
  }

  private void awaitAttempts(int n) {
    await().atMost(WAIT).until(() -> attempts.size() >= n);
  }

  @Test
  void failuresAreRetriedWithExponentialBackoffOnTheTicker() {
    SetpointExtension setpoint = start(b -> b.backoff(Duration.ofMillis(5), Duration.ofSeconds(1)),
        (ctx, tools, req) -> {
          if (ctx.retries() < 2) {
            throw new IllegalStateException("not yet");
          }
          return Result.done();
        });
    try {
      label(setpoint, "flaky", "");
      awaitAttempts(1);

      ticker.advance(Duration.ofMillis(5));   // first retry after 5 ms
      awaitAttempts(2);
      ticker.advance(Duration.ofMillis(10));  // second after 10 ms more
      awaitAttempts(3);

      assertThat(attempts).extracting(Attempt::retries).containsExactly(0, 1, 2);
      assertThat(attempts.get(1).causedBy(Trigger.Kind.RETRY)).isTrue();
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void aControllerWithARetryLimitGivesUpAfterItAndSaysSoInAnEventOnTheResource() throws Exception {
    SetpointExtension setpoint = start(b -> b.maxRetries(2).backoff(Duration.ofMillis(5), Duration.ofSeconds(1)),
        (ctx, tools, req) -> {
          throw new IllegalStateException("never works");
        });
    try {
      Resource label = label(setpoint, "hopeless", "");
      awaitAttempts(1);
      ticker.advance(Duration.ofMillis(5));
      awaitAttempts(2);
      ticker.advance(Duration.ofMillis(10));
      awaitAttempts(3);

      await().atMost(WAIT).until(() -> setpoint.client().listByOwner(label.getId()).stream()
          .anyMatch(r -> r.getId().getType().equals(CoreTypes.EVENT)));
      Resource event = setpoint.client().listByOwner(label.getId()).stream()
          .filter(r -> r.getId().getType().equals(CoreTypes.EVENT)).findFirst().orElseThrow();
      Event recorded = event.getData().unpack(Event.class);
      assertThat(recorded.getSeverity()).isEqualTo(Event.Severity.SEVERITY_WARNING);
      assertThat(recorded.getReason()).isEqualTo("RetriesExhausted");
      assertThat(recorded.getMessage()).contains("gave up after 2 retries").contains("never works");
      ticker.advance(Duration.ofHours(1)); // no retry is left to come due
      assertThat(attempts).hasSize(3).extracting(Attempt::retries).containsExactly(0, 1, 2);
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void anErrorFromAReconcilerFailsThatReconcileAndTheWorkerGoesOn() {
    SetpointExtension setpoint = start(b -> b.concurrency(1).backoff(Duration.ofMillis(5), Duration.ofSeconds(1)),
        (ctx, tools, req) -> {
          if (req.id().getName().equals("broken") && ctx.retries() == 0) {
            throw new AssertionError("an invariant the reconciler checks");
          }
          return Result.done();
        });
    try {
      label(setpoint, "broken", "");
      awaitAttempts(1);
      label(setpoint, "fine", "");
      // With one worker, this reconcile needs the thread the Error was thrown in.
      awaitAttempts(2);
      ticker.advance(Duration.ofMillis(5));
      awaitAttempts(3);

      assertThat(attempts).extracting(Attempt::retries).contains(1);
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void requeueAfterReconcilesAgainWhenTheTickerGetsThere() {
    AtomicBoolean first = new AtomicBoolean(true);
    SetpointExtension setpoint = start(b -> b, (ctx, tools, req) ->
        first.getAndSet(false) ? Result.requeueAfter(Duration.ofMinutes(5)) : Result.done());
    try {
      label(setpoint, "polled", "");
      awaitAttempts(1);

      ticker.advance(Duration.ofMinutes(5));

      awaitAttempts(2);
      assertThat(attempts.get(1).causedBy(Trigger.Kind.TIMER)).isTrue();
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void aTerminalFailureIsNotRetriedButTheNextChangeReconcilesAgain() {
    SetpointExtension setpoint = start(b -> b, (ctx, tools, req) -> {
      if (attempts.isEmpty()) {
        throw new TerminalException("the label is misconfigured");
      }
      return Result.done();
    });
    try {
      label(setpoint, "broken", "v1");
      awaitAttempts(1);
      ticker.advance(Duration.ofHours(1)); // long past any backoff

      label(setpoint, "broken", "v2");

      awaitAttempts(2);
      assertThat(attempts).noneMatch(a -> a.causedBy(Trigger.Kind.RETRY));
      assertThat(attempts.get(1).causedBy(Trigger.Kind.EVENT)).isTrue();
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void generationChangedIgnoresMetadataOnlyUpdates() {
    SetpointExtension setpoint = start(b -> b.filter(Predicates.generationChanged()), (ctx, tools, req) -> Result.done());
    try {
      Resource created = label(setpoint, "filtered", "v1");
      awaitAttempts(1);

      Resource relabelled = setpoint.client().write(created.toBuilder().putMetadata("team", "a").build());
      Resource changed = label(setpoint, "filtered", "v2");

      awaitAttempts(2);
      assertThat(attempts.get(1).triggers()).extracting(Trigger::detail)
          .anyMatch(d -> d.endsWith("@ revision " + changed.getVersion()))
          .noneMatch(d -> d.endsWith("@ revision " + relabelled.getVersion()));
      assertThat(attempts).hasSize(2);
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void aReconcileThatOverrunsItsTimeoutIsCancelledAndRetried() {
    CountDownLatch never = new CountDownLatch(1);
    CountDownLatch hanging = new CountDownLatch(1);
    SetpointExtension setpoint = start(b -> b.reconcileTimeout(Duration.ofMillis(200)), (ctx, tools, req) -> {
      if (ctx.retries() == 0) {
        hanging.countDown();
        never.await(); // interrupted by the timeout
      }
      return Result.done();
    });
    try {
      label(setpoint, "slow", "");
      await().atMost(Duration.ofSeconds(30)).until(() -> hanging.getCount() == 0);
      ticker.advance(Duration.ofMillis(200)); // the timeout, on the manager's ticker
      awaitAttempts(1);
      assertThat(attempts.get(0).cancelled()).isTrue();

      ticker.advance(Duration.ofMillis(5));

      awaitAttempts(2);
      assertThat(attempts.get(1).cancelled()).isFalse();
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void theInitializerRunsBeforeTheFirstReconcile() {
    List<String> order = new CopyOnWriteArrayList<>();
    SetpointExtension setpoint = start(b -> b.initializer(tools -> order.add("initialized")),
        (ctx, tools, req) -> {
          order.add("reconciled");
          return Result.done();
        });
    try {
      label(setpoint, "first", "");
      awaitAttempts(1);
      assertThat(order).startsWith("initialized", "reconciled");
    } finally {
      setpoint.afterEach(null);
    }
  }

  @Test
  void oneReconcileCanBeCalledDirectly() throws Exception {
    SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();
    setpoint.beforeEach(null);
    try {
      Resource artist = setpoint.client().write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "unit"))
          .setData(Any.pack(Artist.newBuilder().setName("Unit").build())).build());

      Result result = setpoint.reconcile(ArtistController.controller(), Ids.withoutUid(artist.getId()));

      assertThat(result).isEqualTo(Result.done());
      ID album = Ids.of(DemoTypes.ALBUM, "unit-greatest-hits");
      assertThat(setpoint.client().readConsistent(album).getOwner()).isEqualTo(artist.getId());
    } finally {
      setpoint.afterEach(null);
    }
  }
}
