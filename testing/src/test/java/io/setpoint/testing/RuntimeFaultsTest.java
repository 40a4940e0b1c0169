package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.controller.v1.ControllerInfo;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import io.setpoint.controller.Request;
import io.setpoint.controller.Result;
import io.setpoint.controller.Sharding;
import io.setpoint.controller.loop.Locker;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.Executive;
import io.setpoint.demo.v1.RecordLabel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nothing in the controller runtime dies silently: a user's filter, mapper, source mapper, fairness
 * function or initializer that throws an {@link Error}, an informer whose watch fails with one, a
 * worker that dies, and a loop's lease heartbeat that cannot renew, are
 * recorded as faults (counted, kept as the controller's last fault, logged), and the runtime goes
 * on with backoff on the manager's ticker, losing no event. Through a real agent and the real
 * runner; the manual ticker drives every retry.
 */
class RuntimeFaultsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final ManualTicker ticker = new ManualTicker();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Set<String> reconciled = ConcurrentHashMap.newKeySet();
  private Manager manager;

  @AfterEach
  void close() {
    if (manager != null) {
      manager.close();
    }
  }

  private Controller.Builder labels(String name) {
    return Controller.forType(DemoTypes.RECORD_LABEL).named(name);
  }

  private Controller recording(Controller.Builder builder, String name) {
    return builder.reconciler((ctx, tools, req) -> {
      reconciled.add(name + ":" + req.id().getName());
      return Result.done();
    });
  }

  private Manager start(SetpointClient client, Controller... controllers) {
    manager = Manager.builder().client(client).ticker(ticker).meterRegistry(meters).build();
    for (Controller c : controllers) {
      manager.register(c);
    }
    manager.start();
    return manager;
  }

  private ID label(String name) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName("Label " + name).build())).build()).getId();
  }

  private void executive(String name) {
    setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.EXECUTIVE, Tenancies.CLUSTER, name))
        .setData(Any.pack(Executive.newBuilder().setPosition("ceo").build())).build());
  }

  private ControllerState state(String name) {
    return manager.controllers().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  private double faultCount(String controller, String where) {
    var counter = meters.find("setpoint.controller.faults").tag("controller", controller).tag("where", where).counter();
    return counter == null ? 0 : counter.count();
  }

  private void awaitRunning(String name) {
    await().atMost(WAIT).until(() -> state(name).running());
  }

  @Test
  void aFilterThatThrowsLetsTheEventThroughAndTheOtherControllersOnTheCacheStillGetIt() {
    Controller throwing = recording(labels("throwing-filter").filter(event -> {
      throw new AssertionError("a filter's bug");
    }), "throwing-filter");
    Controller plain = recording(labels("plain"), "plain");
    start(setpoint.client(), throwing, plain);
    awaitRunning("throwing-filter");
    awaitRunning("plain");

    label("after-start");

    await().atMost(WAIT).until(() -> reconciled.containsAll(List.of("throwing-filter:after-start", "plain:after-start")));
    ControllerState state = state("throwing-filter");
    assertThat(state.faults()).isPositive();
    assertThat(state.lastFault()).hasValueSatisfying(f -> assertThat(f).contains("filter failed").contains("after-start")
        .contains("AssertionError: a filter's bug"));
    assertThat(faultCount("throwing-filter", "filter")).isPositive();
    assertThat(state("plain").faults()).isZero();
  }

  @Test
  void aMapperThatThrowsIsRetriedWithBackoffOnTheTickerUntilItMapsTheEvent() {
    AtomicInteger calls = new AtomicInteger();
    Controller mapped = recording(labels("mapped").watch(DemoTypes.EXECUTIVE, (tools, executive) -> {
      if (calls.incrementAndGet() <= 2) {
        throw new StackOverflowError("a mapper's bug");
      }
      return List.of(Request.of(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), executive.getId().getName())));
    }), "mapped");
    ID target = label("boss");
    start(setpoint.client(), mapped);
    awaitRunning("mapped");
    await().atMost(WAIT).until(() -> reconciled.contains("mapped:boss")); // the startup reconcile
    reconciled.clear();

    executive("boss");
    await().atMost(WAIT).until(() -> calls.get() == 1);
    assertThat(state("mapped").lastFault()).hasValueSatisfying(f -> assertThat(f).contains("mapper of demo.v1.Executive"));
    assertThat(reconciled).isEmpty(); // nothing mapped yet: the retry waits for the ticker

    ticker.advance(Duration.ofMillis(100)); // the first retry, which fails again
    await().atMost(WAIT).until(() -> calls.get() == 2);
    ticker.advance(Duration.ofMillis(200)); // the second, which maps
    await().atMost(WAIT).until(() -> reconciled.contains("mapped:" + target.getName()));
    assertThat(state("mapped").faults()).isEqualTo(2);
    assertThat(faultCount("mapped", "mapper of demo.v1.Executive")).isEqualTo(2);
  }

  @Test
  void aSourceMapperThatThrowsIsRetriedToo() {
    AtomicReference<Consumer<String>> sink = new AtomicReference<>();
    AtomicBoolean broken = new AtomicBoolean(true);
    Controller sourced = recording(labels("sourced").source((Consumer<String> s) -> {
      sink.set(s);
      return () -> {};
    }, (String name) -> {
      if (broken.getAndSet(false)) {
        throw new AssertionError("a source mapper's bug");
      }
      return List.of(Request.of(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name)));
    }), "sourced");
    label("from-outside");
    start(setpoint.client(), sourced);
    awaitRunning("sourced");
    await().atMost(WAIT).until(() -> sink.get() != null && reconciled.contains("sourced:from-outside"));
    reconciled.clear();

    sink.get().accept("from-outside");
    await().atMost(WAIT).until(() -> state("sourced").faults() == 1);
    assertThat(reconciled).isEmpty();
    ticker.advance(Duration.ofMillis(100));
    await().atMost(WAIT).until(() -> reconciled.contains("sourced:from-outside"));
    assertThat(faultCount("sourced", "source mapper")).isEqualTo(1);
  }

  @Test
  void aFairnessFunctionThatThrowsPutsTheKeyInTheSharedGroupAndLosesNoEvent() {
    Controller unfair = recording(labels("unfair").fairBy(request -> {
      throw new AssertionError("a fairness function's bug");
    }), "unfair");
    Controller plain = recording(labels("plain"), "plain");
    start(setpoint.client(), unfair, plain);
    awaitRunning("unfair");
    awaitRunning("plain");

    label("grouped");

    await().atMost(WAIT).until(() -> reconciled.containsAll(List.of("unfair:grouped", "plain:grouped")));
    assertThat(state("unfair").lastFault()).hasValueSatisfying(f -> assertThat(f).contains("fairness failed")
        .contains("grouped").contains("a fairness function's bug"));
    assertThat(faultCount("unfair", "fairness")).isPositive();
    assertThat(state("unfair").running()).isTrue();
    assertThat(state("plain").faults()).isZero();
  }

  @Test
  void aControllerWhoseWorkerDiesWhileRunningIsRestartedByItsSupervisorAfterTheBackoff() {
    // A tracer outside the reconciler's try ends the worker that ends the span: with one worker,
    // the whole controller, until the supervisor starts it again.
    AtomicBoolean brokenOnce = new AtomicBoolean(true);
    SpanProcessor breaking = new SpanProcessor() {
      @Override
      public void onStart(Context parent, ReadWriteSpan span) {}

      @Override
      public boolean isStartRequired() {
        return false;
      }

      @Override
      public void onEnd(ReadableSpan span) {
        // The reconcile's span, which ends after the reconciler returned (the queue's ends before).
        if (!span.getName().startsWith("queue ") && brokenOnce.getAndSet(false)) {
          throw new AssertionError("a span processor's bug");
        }
      }

      @Override
      public boolean isEndRequired() {
        return true;
      }
    };
    try (OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(breaking).build()).build()) {
      label("first");
      manager = Manager.builder().client(setpoint.client()).ticker(ticker).meterRegistry(meters).openTelemetry(otel).build();
      manager.register(recording(labels("traced"), "traced"));
      manager.start();

      await().atMost(WAIT).until(() -> state("traced").failure().isPresent());
      assertThat(state("traced").failure()).hasValueSatisfying(f -> assertThat(f).startsWith("failed while running")
          .contains("a span processor's bug").contains("restarting in 500 ms"));
      assertThat(manager.stopped()).singleElement().asString().startsWith("traced (failed while running");
      assertThat(faultCount("traced", "run")).isEqualTo(1);
      assertThat(reconciled).containsExactly("traced:first");
      reconciled.clear();

      ticker.advance(Duration.ofMillis(500)); // the supervisor's backoff
      awaitRunning("traced");
      assertThat(state("traced").failure()).isEmpty();
      assertThat(manager.stopped()).isEmpty();
      label("second");
      await().atMost(WAIT).until(() -> reconciled.containsAll(List.of("traced:first", "traced:second")));
    }
  }

  @Test
  void aLoopsLeaseHeartbeatThatFailsToRenewIsCountedInTheLoopsFaultMetric() throws Exception {
    AtomicBoolean failNextWrite = new AtomicBoolean(false);
    ManagedChannel channel = failingOnce("Write", failNextWrite, new AssertionError("a bug under the renewal"));
    try (SetpointClient client = SetpointClient.over(channel, "failing")) {
      Duration lease = Duration.ofSeconds(15);
      Loop<String, String> loop = Loop.named("leased")
          .listerWatcher(() -> Set.of("only"))
          .store(key -> Optional.of(key))
          .handler((ctx, item) -> {
            reconciled.add("leased:" + ctx.key());
            return Result.done();
          })
          .locker(Locker.<String>lease(client, "leased").holder("one").duration(lease).ticker(ticker).build())
          .build();
      manager = Manager.builder().client(setpoint.client()).ticker(ticker).meterRegistry(meters).build();
      manager.register(loop);
      manager.start();
      await().atMost(WAIT).until(() -> reconciled.contains("leased:only")); // the heartbeat is written

      failNextWrite.set(true);
      ticker.advance(lease.dividedBy(3)); // the renewal, whose write throws
      await().atMost(WAIT).until(() -> faultCount("leased", "lease heartbeat") == 1);

      String before = heartbeatVersion("one");
      ticker.advance(lease.dividedBy(3)); // the next renewal goes through
      await().atMost(WAIT).until(() -> !heartbeatVersion("one").equals(before));
      assertThat(faultCount("leased", "lease heartbeat")).isEqualTo(1);
    } finally {
      manager.close();
      manager = null;
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** The version of {@code holder}'s heartbeat lease (the lease that names no key). */
  private String heartbeatVersion(String holder) {
    return setpoint.client().listAll(Types.LEASE, Tenancies.CLUSTER).stream()
        .filter(r -> Leases.of(r).getHolder().equals(holder) && Leases.of(r).getKey().isEmpty())
        .map(Resource::getVersion).findFirst().orElseThrow();
  }

  @Test
  void anInitializerThatThrowsAnErrorIsRetriedByTheSupervisorWithBackoff() {
    AtomicInteger starts = new AtomicInteger();
    Controller initialized = recording(labels("initialized").initializer(tools -> {
      if (starts.incrementAndGet() == 1) {
        throw new AssertionError("an initializer's bug");
      }
    }), "initialized");
    start(setpoint.client(), initialized);

    await().atMost(WAIT).until(() -> state("initialized").failure().isPresent());
    assertThat(state("initialized").failure()).hasValueSatisfying(f -> assertThat(f).contains("AssertionError"));
    assertThat(manager.stopped()).singleElement().asString().startsWith("initialized (failed to start");
    assertThat(faultCount("initialized", "start")).isEqualTo(1);

    ticker.advance(Duration.ofMillis(500)); // the supervisor's first backoff
    awaitRunning("initialized");
    assertThat(starts).hasValue(2);
    assertThat(state("initialized").failure()).isEmpty();
    assertThat(manager.stopped()).isEmpty();
  }

  @Test
  void anInformerWhoseWatchFailsWithAnErrorListsAfreshAfterItsBackoffAndItsControllersGoOn() throws Exception {
    AtomicBoolean failNextWatch = new AtomicBoolean(true);
    ManagedChannel channel = failingOnce("WatchList", failNextWatch, new StackOverflowError("a bug under the informer"));
    try (SetpointClient client = SetpointClient.over(channel, "failing")) {
      start(client, recording(labels("informed"), "informed"));
      await().atMost(WAIT).until(() -> !failNextWatch.get());
      await().atMost(WAIT).until(() -> state("informed").faults() == 1);
      assertThat(state("informed").lastFault()).hasValueSatisfying(f -> assertThat(f).contains("watch")
          .contains("StackOverflowError"));

      ticker.advance(Duration.ofMillis(50)); // the informer's backoff: it lists afresh and watches
      awaitRunning("informed");
      label("after-the-error");
      await().atMost(WAIT).until(() -> reconciled.contains("informed:after-the-error"));
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A channel to the agent whose next call of {@code method}, while {@code armed}, throws {@code
   * error} in the caller's thread, as a bug under the runtime's call would.
   */
  private ManagedChannel failingOnce(String method, AtomicBoolean armed, Error error) {
    ClientInterceptor failing = new ClientInterceptor() {
      @Override
      public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> m, CallOptions options, Channel next) {
        if (m.getBareMethodName().equals(method) && armed.getAndSet(false)) {
          throw error;
        }
        return next.newCall(m, options);
      }
    };
    return ManagedChannelBuilder.forAddress("127.0.0.1", setpoint.agent().port()).usePlaintext().intercept(failing).build();
  }

  /** What a test does with a manager whose first Read call throws an Error. */
  @FunctionalInterface
  private interface ManagerCheck {
    void run(Manager manager) throws Exception;
  }

  /**
   * Starts a manager, built by {@code configure} over a client whose first Read throws an {@link
   * AssertionError} in the caller's thread, and runs {@code check} against it.
   */
  private void withFirstReadFailing(UnaryOperator<Manager.Builder> configure, ManagerCheck check) throws Exception {
    ManagedChannel channel = failingOnce("Read", new AtomicBoolean(true), new AssertionError("a bug under the read"));
    try (SetpointClient client = SetpointClient.over(channel, "failing");
        Manager started = configure.apply(Manager.builder().client(client).ticker(ticker).meterRegistry(meters)).build()) {
      started.start();
      check.run(started);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anElectionWhoseCallThrowsAnErrorCampaignsAgainAfterItsRetryPeriod() throws Exception {
    withFirstReadFailing(b -> b.leaderElection(LeaseElection.named("faulty").holder("only").retryPeriod(Duration.ofSeconds(1))),
        elected -> {
          await().atMost(WAIT).until(() -> faultCount("faulty", "election") == 1);
          assertThat(elected.isLeader()).isFalse();

          ticker.advance(Duration.ofSeconds(1));
          await().atMost(WAIT).until(elected::isLeader);
        });
  }

  @Test
  void aShardHeartbeatWhoseCallThrowsAnErrorJoinsAfterItsRetryPeriod() throws Exception {
    withFirstReadFailing(b -> b.sharding(Sharding.named("faulty").member("only").retryPeriod(Duration.ofSeconds(1))),
        sharded -> {
          await().atMost(WAIT).until(() -> faultCount("faulty", "shard heartbeat") + faultCount("faulty", "shard slots") == 1);

          await().atMost(WAIT).until(() -> {
            ticker.advance(Duration.ofMillis(250));
            return sharded.sharding().orElseThrow().isMember();
          });
        });
  }

  @Test
  void theAgentReportsAControllerStoppedByAFailureInReadyzAndItsFaultsInTheControllerList() throws Exception {
    AtomicInteger starts = new AtomicInteger();
    ManualTicker agentTicker = new ManualTicker();
    Controller broken = labels("broken-start").initializer(tools -> {
      if (starts.incrementAndGet() == 1) {
        throw new AssertionError("an initializer's bug");
      }
    }).reconciler((ctx, tools, req) -> Result.done());
    SetpointExtension agent = SetpointExtension.builder()
        .agent(a -> a.types(DemoTypes::register).ticker(agentTicker).controllers(m -> m.register(broken)))
        .build();
    agent.beforeEach(null);
    try {
      HttpClient http = HttpClient.newHttpClient();
      URI readyz = URI.create("http://127.0.0.1:" + agent.agent().port() + "/readyz");
      await().atMost(WAIT).until(() -> http.send(HttpRequest.newBuilder(readyz).build(),
          HttpResponse.BodyHandlers.ofString()).body().contains("broken-start"));
      HttpResponse<String> notReady = http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("controllers that should run here do not: broken-start (failed to start")
          .contains("AssertionError");
      ControllerInfo info = agent.client().controllers().stream()
          .filter(c -> c.getName().equals("broken-start")).findFirst().orElseThrow();
      assertThat(info.getFaults()).isEqualTo(1);
      assertThat(info.getLastFault()).contains("start failed").contains("an initializer's bug");

      agentTicker.advance(Duration.ofMillis(500));
      await().atMost(WAIT).until(() -> http.send(HttpRequest.newBuilder(readyz).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
    } finally {
      agent.afterEach(null);
    }
  }
}
