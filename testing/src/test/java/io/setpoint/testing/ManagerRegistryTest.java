package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import io.setpoint.controller.Result;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Controllers added to and removed from a running manager, and reconciles asked for by hand
 * ({@link Manager#trigger}).
 */
class ManagerRegistryTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final List<List<Trigger>> reconciles = new CopyOnWriteArrayList<>();

  private Controller labels() {
    return Controller.forType(DemoTypes.RECORD_LABEL).named("labels").reconciler((ctx, tools, req) -> {
      reconciles.add(ctx.triggers());
      return Result.done();
    });
  }

  @Test
  void aControllerRegisteredOnARunningManagerRunsAndOneUnregisteredStopsAndMayComeBack() {
    MeterRegistry meters = new SimpleMeterRegistry();
    try (Manager manager = Manager.builder().client(setpoint.client()).meterRegistry(meters).build()) {
      manager.start();
      manager.register(labels());
      ID verve = label("verve");
      await().atMost(WAIT).until(() -> reconciles.size() == 1);

      assertThat(manager.unregister("labels")).isTrue();
      assertThat(manager.controllers()).isEmpty();
      assertThat(manager.unregister("labels")).as("already gone").isFalse();
      assertThatThrownBy(() -> manager.trigger("labels", verve, "test"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no controller named labels");

      manager.register(labels());
      // Registered again: it lists every label at start, and reports on the same meters.
      await().atMost(WAIT).until(() -> reconciles.size() == 2);
      await().atMost(WAIT).until(() -> meters.get("controller.runtime.reconcile").tag("controller", "labels")
          .tag("result", "success").counter().count() == 2);
      assertThat(manager.controllers()).extracting(ControllerState::name).containsExactly("labels");
    }
  }

  @Test
  void aControllerThatShouldRunIsUnprimedUntilItsCacheHoldsItsTypes() {
    try (Manager manager = Manager.builder().client(setpoint.client()).build()) {
      manager.register(labels());
      assertThat(manager.unprimed()).as("registered, not started").containsExactly("labels");
      manager.start();
      await().atMost(WAIT).until(() -> manager.unprimed().isEmpty());
      assertThat(manager.controllers()).extracting(ControllerState::running).containsExactly(true);
    }
  }

  @Test
  void triggerQueuesAReconcileWithAManualTriggerAndRefusesWhatTheControllerCannotTake() {
    try (Manager manager = Manager.builder().client(setpoint.client()).build()) {
      manager.register(labels());
      manager.start();
      ID verve = label("verve");
      await().atMost(WAIT).until(() -> reconciles.size() == 1);

      manager.trigger("labels", verve, "asked by the test");

      await().atMost(WAIT).until(() -> reconciles.size() == 2);
      assertThat(reconciles.get(1)).contains(Trigger.manual("asked by the test"));
      assertThatThrownBy(() -> manager.trigger("labels", Ids.of(DemoTypes.ARTIST, "miles"), "test"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("manages demo.v1.RecordLabel");
    }
  }

  private ID label(String name) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build())).build()).getId();
  }

  @Test
  void aSecondIndexOfTheSameNameOnTheSameTypeWithAnotherFunctionIsRefusedAtRegistration() {
    Index byName = Index.of("by-name", r -> r.getId().getName());
    Controller first = Controller.forType(DemoTypes.RECORD_LABEL).named("first")
        .index(DemoTypes.RECORD_LABEL, byName).reconciler((ctx, tools, req) -> Result.done());
    Controller sharing = Controller.forType(DemoTypes.RECORD_LABEL).named("sharing")
        .index(DemoTypes.RECORD_LABEL, byName).reconciler((ctx, tools, req) -> Result.done());
    Controller clashing = Controller.forType(DemoTypes.RECORD_LABEL).named("clashing")
        .index(DemoTypes.RECORD_LABEL, Index.of("by-name", r -> r.getId().getTenancy().getPartition()))
        .reconciler((ctx, tools, req) -> Result.done());
    try (Manager manager = Manager.builder().client(setpoint.client()).build()) {
      manager.register(first).register(sharing);

      assertThatThrownBy(() -> manager.register(clashing))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already indexes demo.v1.RecordLabel by \"by-name\" with another function");
      assertThat(manager.controllers()).extracting(ControllerState::name).containsExactly("first", "sharing");
    }
  }
}
