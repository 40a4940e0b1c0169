package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.ReconcileContext;
import io.setpoint.controller.Request;
import io.setpoint.controller.Result;
import io.setpoint.controller.Tools;
import io.setpoint.controller.TypedReconciler;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.resource.Decoded;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A typed reconciler gets its resource decoded, or learns it is gone; with a cleaner the runtime
 * keeps the controller's finalizer on each resource, runs the cleaner once a Delete marks it, and
 * lets the store delete it when the clean-up is done. Through a real agent and manager.
 */
class TypedReconcilerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String FINALIZER = "labels.example.com/cleanup";

  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final AtomicBoolean cleanupDone = new AtomicBoolean();

  private final TypedReconciler<RecordLabel> reconciler = new TypedReconciler<>() {
    @Override
    public Result reconcile(Decoded<RecordLabel> label, ReconcileContext ctx, Tools tools) {
      seen.add("reconcile " + label.id().getName() + " " + label.data().getName()
          + " finalizers=" + Finalizers.of(label.resource()));
      return Result.done();
    }

    @Override
    public Result deleted(Request request, ReconcileContext ctx, Tools tools) {
      seen.add("deleted " + request.id().getName());
      return Result.done();
    }
  };

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register).controllers(manager -> {
        manager.register(Controller.forType(DemoTypes.RECORD_LABEL).named("typed").reconciler(RecordLabel.class,
            (label, ctx, tools) -> {
              seen.add("plain " + label.id().getName() + " " + label.data().getName());
              return Result.done();
            }));
      }))
      .build();

  private ID label(String name, String title) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(title).build())).build()).getId();
  }

  @Test
  void aTypedReconcilerGetsTheDecodedResource() {
    label("decoded", "Blue Note");

    await().atMost(WAIT).until(() -> seen.contains("plain decoded Blue Note"));
  }

  @Test
  void aCleanerKeepsItsFinalizerOnTheResourceAndReleasesItWhenTheCleanUpIsDone() throws Exception {
    Controller guarded = Controller.forType(DemoTypes.RECORD_LABEL).named("guarded").finalizer(FINALIZER)
        .reconciler(RecordLabel.class, reconciler, (label, ctx, tools) -> {
          seen.add("cleanup " + label.id().getName());
          return cleanupDone.get() ? Result.done() : Result.requeueAfter(Duration.ofMillis(50));
        });
    ID id = label("guarded", "Verve");
    try (Manager manager = Manager.builder().client(setpoint.client()).build()) {
      manager.register(guarded);
      manager.start();

      await().atMost(WAIT).until(() -> seen.contains("reconcile guarded Verve finalizers=[" + FINALIZER + "]"));
      assertThat(Finalizers.of(setpoint.client().read(id))).containsExactly(FINALIZER);

      setpoint.client().delete(id);
      await().atMost(WAIT).until(() -> seen.contains("cleanup guarded"));
      Resource marked = setpoint.client().read(id); // still there: the clean-up is not done
      assertThat(Finalizers.isMarkedForDeletion(marked)).isTrue();
      List<String> sofar = List.copyOf(seen);
      assertThat(sofar.subList(sofar.indexOf("cleanup guarded"), sofar.size()))
          .noneMatch(s -> s.startsWith("reconcile guarded")); // marked: the cleaner runs, not the reconciler

      cleanupDone.set(true);
      setpoint.awaitDeleted(id);
      await().atMost(WAIT).until(() -> seen.contains("deleted guarded"));
    }
  }

  @Test
  void aFinalizerNameMustBeOneWord() {
    assertThatThrownBy(() -> Controller.forType(DemoTypes.RECORD_LABEL).finalizer("two words"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without spaces");
  }
}
