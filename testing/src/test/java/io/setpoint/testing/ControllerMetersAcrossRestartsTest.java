package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.Any;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Leadership;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import io.setpoint.controller.Result;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A SINGLETON controller stopped and started again by a leader change keeps one set of meters:
 * its gauges follow the new run, and the registry never warns that a meter is already registered.
 */
class ControllerMetersAcrossRestartsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final Logger registryLog = (Logger) LoggerFactory.getLogger(MeterRegistry.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void captureTheRegistrysLog() {
    logged.start();
    registryLog.addAppender(logged);
  }

  @AfterEach
  void releaseTheRegistrysLog() {
    registryLog.detachAppender(logged);
  }

  @Test
  void aControllerRestartedByALeaderChangeReportsItsNewRunOnTheSameMeters() {
    FlippingLeadership leadership = new FlippingLeadership();
    MeterRegistry meters = new SimpleMeterRegistry();
    CountDownLatch release = new CountDownLatch(1);
    Controller labels = Controller.forType(DemoTypes.RECORD_LABEL).named("labels").reconciler((ctx, tools, req) -> {
      release.await();
      return Result.done();
    });
    try (Manager manager = Manager.builder().client(setpoint.client())
        .meterRegistry(meters).leadership(leadership).drainTimeout(Duration.ofSeconds(10)).build()) {
      manager.register(labels);
      manager.start();
      await().atMost(WAIT).until(() -> running(manager));
      leadership.set(false);
      await().atMost(WAIT).until(() -> !running(manager));
      leadership.set(true);
      await().atMost(WAIT).until(() -> running(manager));

      setpoint.client().write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "verve"))
          .setData(Any.pack(RecordLabel.newBuilder().setName("Verve").build()))
          .build());

      // The second run's worker is reconciling: the gauge must read that run, not the first one.
      await().atMost(WAIT).until(() -> meters.get("controller.runtime.active.workers").tag("controller", "labels")
          .gauge().value() == 1.0);
      release.countDown();
      await().atMost(WAIT).until(() -> meters.get("controller.runtime.active.workers").tag("controller", "labels")
          .gauge().value() == 0.0);
      assertThat(List.copyOf(logged.list)).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
          .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    } finally {
      release.countDown();
    }
  }

  private static boolean running(Manager manager) {
    return manager.controllers().stream().allMatch(ControllerState::running);
  }

  /** A leadership the test hands over and takes back. */
  private static final class FlippingLeadership implements Leadership {
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean leader = true;

    void set(boolean leader) {
      this.leader = leader;
      listeners.forEach(Runnable::run);
    }

    @Override
    public boolean isLeader() {
      return leader;
    }

    @Override
    public void onChange(Runnable listener) {
      listeners.add(listener);
    }
  }
}
