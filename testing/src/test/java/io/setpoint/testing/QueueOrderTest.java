package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Result;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The order a controller's queued requests run in, as set per controller: fair between the groups
 * of {@code fairBy} (by default a resource's partition and namespace), and by the priority its
 * {@code priority} function gives each change. One worker, held up by a first reconcile while the
 * others queue, so the order they then run in is the queue's alone.
 */
class QueueOrderTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final List<String> order = new CopyOnWriteArrayList<>();
  private final CountDownLatch holding = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  private void artist(String namespace, String name) {
    setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", namespace), name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build());
  }

  /**
   * Runs a one-worker controller configured by {@code configure}: {@code hold/first} is reconciled
   * first and holds the worker until {@code queue} has written what it queues; returns the order
   * of the reconciles after it.
   */
  private List<String> runAfterHold(UnaryOperator<Controller.Builder> configure, Runnable queue, int expected)
      throws Exception {
    Controller controller = configure.apply(Controller.forType(DemoTypes.ARTIST).named("ordered").concurrency(1))
        .reconciler((ctx, tools, req) -> {
          String key = req.id().getTenancy().getNamespace() + "/" + req.id().getName();
          if (key.equals("hold/first")) {
            holding.countDown();
            release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
          }
          order.add(key);
          return Result.done();
        });
    try (Manager manager = Manager.builder().client(setpoint.client()).ticker(new ManualTicker()).build()) {
      manager.register(controller);
      manager.start();
      await().atMost(WAIT).until(() -> manager.controllers().get(0).running());
      artist("hold", "first");
      assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      queue.run();
      await().atMost(WAIT).until(() -> manager.controllers().get(0).queueDepth() == expected);
      release.countDown();
      await().atMost(WAIT).until(() -> order.size() == expected + 1);
    }
    assertThat(order.get(0)).isEqualTo("hold/first");
    return order.subList(1, order.size());
  }

  private static void busyThenQuiet(QueueOrderTest test) {
    for (int i = 0; i < 8; i++) {
      test.artist("busy", "b" + i);
    }
    test.artist("quiet", "q");
  }

  @Test
  void byDefaultANamespaceWithManyRequestsDelaysAnotherNamespacesRequestByAtMostOne() throws Exception {
    List<String> after = runAfterHold(b -> b, () -> busyThenQuiet(this), 9);

    assertThat(after.indexOf("quiet/q")).isLessThanOrEqualTo(1);
  }

  @Test
  void withOneGroupForAllRequestsTheyRunInTheOrderTheyCame() throws Exception {
    List<String> after = runAfterHold(b -> b.fairBy(request -> "everyone"), () -> busyThenQuiet(this), 9);

    assertThat(after).last().isEqualTo("quiet/q");
  }

  @Test
  void changesThePriorityFunctionMarksLowWaitBehindTheOthersUntilTheyAge() throws Exception {
    List<String> after = runAfterHold(
        b -> b.priority(event -> event.resource().getId().getTenancy().getNamespace().equals("bulk")
            ? Priority.LOW : Priority.HIGH).aging(Duration.ofHours(1)),
        () -> {
          for (int i = 0; i < 4; i++) {
            artist("bulk", "b" + i);
          }
          artist("live", "l");
        }, 5);

    assertThat(after.get(0)).isEqualTo("live/l"); // the manual ticker never lets the bulk ones age
  }
}
