package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import io.setpoint.controller.Result;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A manager in its own process (a gRPC client of a real agent) with a controller whose type the
 * agent does not serve: that controller fails once, saying why and what to do; the others run.
 */
class RemoteUnknownTypeTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Type PLANT = Types.of("garden", "v1", "Plant");

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final Logger supervisorLog = (Logger) LoggerFactory.getLogger("io.setpoint.controller.Supervisor");
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void captureTheSupervisorsLog() {
    logged.start();
    supervisorLog.addAppender(logged);
  }

  @AfterEach
  void releaseTheSupervisorsLog() {
    supervisorLog.detachAppender(logged);
  }

  @Test
  void aControllerOfAnUnknownTypeFailsOnceWithWhatToDoWhileTheOthersRun() {
    Set<String> reconciled = ConcurrentHashMap.newKeySet();
    Controller plants = Controller.forType(PLANT).named("plants").reconciler((ctx, tools, req) -> Result.done());
    Controller labels = Controller.forType(DemoTypes.RECORD_LABEL).named("labels").reconciler((ctx, tools, req) -> {
      reconciled.add(req.id().getName());
      return Result.done();
    });
    try (Manager manager = Manager.builder().client(setpoint.client()).build()) {
      manager.register(plants).register(labels);
      manager.start();
      setpoint.client().write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "blue-note"))
          .setData(Any.pack(RecordLabel.newBuilder().setName("Blue Note").build()))
          .build());

      await().atMost(WAIT).until(() -> reconciled.contains("blue-note"));
      ControllerState failed = await().atMost(WAIT).until(() -> state(manager, "plants"), s -> s.failure().isPresent());

      assertThat(failed.running()).isFalse();
      assertThat(failed.failure().orElseThrow())
          .contains("garden.v1.Plant", "127.0.0.1:" + setpoint.agent().port(), "register it", "apply its definition");
      assertThat(state(manager, "labels").running()).isTrue();
      assertThat(state(manager, "labels").failure()).isEmpty();
      // A retry would come 0.5 s after the failure: for 2 s, the one error stays the only one.
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
          .until(() -> errorsAbout("plants").size() == 1);
      ILoggingEvent error = errorsAbout("plants").get(0);
      assertThat(error.getFormattedMessage()).contains(failed.failure().orElseThrow());
      assertThat(error.getThrowableProxy()).as("a stack trace").isNull();
    }
  }

  private static ControllerState state(Manager manager, String name) {
    return manager.controllers().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  private List<ILoggingEvent> errorsAbout(String controller) {
    return List.copyOf(logged.list).stream()
        .filter(e -> e.getLevel() == Level.ERROR && e.getFormattedMessage().contains("controller " + controller + " "))
        .toList();
  }
}
