package io.setpoint.testing;

import static org.awaitility.Awaitility.await;

import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Request;
import io.setpoint.controller.Result;
import io.setpoint.server.Agent;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real in-memory Setpoint server with your types and controllers, and a client to it, for
 * JUnit 5 tests: run controllers for real (integration tier) or call one reconcile directly with
 * {@link #reconcile} (unit tier); drive timing with a {@link io.setpoint.controller.time.ManualTicker}. On a static field the test class shares one server; on an instance field each
 * test gets a fresh one.
 *
 * <pre>{@code
 * @RegisterExtension
 * final SetpointExtension setpoint = SetpointExtension.builder()
 *     .agent(agent -> agent.types(DemoTypes::register).controllers(DemoControllers::register))
 *     .build();
 *
 * @Test
 * void artistGetsAccepted() {
 *   Resource artist = setpoint.client().write(...);
 *   setpoint.awaitCondition(artist.getId(), "demo.setpoint.io/artist", "Accepted");
 * }
 * }</pre>
 */
public final class SetpointExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private final Agent.Builder agentBuilder;
  private final Duration timeout;
  private Agent agent;
  private SetpointClient client;
  private boolean perClass;

  private SetpointExtension(Builder builder) {
    this.agentBuilder = Agent.builder().port(0).acls(false);
    builder.agent.accept(agentBuilder);
    this.timeout = builder.timeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A client of the server (over its real gRPC port). */
  public SetpointClient client() {
    return client;
  }

  /** The server, for its port, registry and manager. */
  public Agent agent() {
    return agent;
  }

  /**
   * Calls {@code controller}'s reconciler once for {@code id}, directly, with a primed cache and a
   * client of this server: the unit tier of controller tests. Nothing is queued or retried.
   */
  public Result reconcile(Controller controller, ID id) throws Exception {
    return agent.manager().reconcileOnce(controller, Request.of(id));
  }

  /** Waits until {@code id} exists and {@code test} holds for it; returns it. */
  public Resource awaitResource(ID id, Predicate<Resource> test) {
    AtomicReference<Resource> seen = new AtomicReference<>();
    await().atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> {
      Optional<Resource> current = client.findConsistent(id);
      current.ifPresent(seen::set);
      return current.isPresent() && test.test(current.get());
    });
    return seen.get();
  }

  /** Waits until the status under {@code statusKey} of {@code id} holds {@code condition} as TRUE. */
  public Resource awaitCondition(ID id, String statusKey, String condition) {
    return awaitResource(id, r -> r.getStatusMap().containsKey(statusKey)
        && Conditions.holds(r.getStatusMap().get(statusKey), condition));
  }

  /** Waits until nothing is stored under {@code id}. */
  public void awaitDeleted(ID id) {
    await().atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> client.findConsistent(id).isEmpty());
  }


  @Override
  public void beforeAll(ExtensionContext context) {
    perClass = true;
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    stop();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!perClass) {
      start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (!perClass) {
      stop();
    }
  }

  private void start() {
    agent = agentBuilder.start();
    client = SetpointClient.connect("127.0.0.1:" + agent.port());
  }

  private void stop() {
    client.close();
    agent.close();
  }

  /** Configures a {@link SetpointExtension}. */
  public static final class Builder {
    private Consumer<Agent.Builder> agent = builder -> {};
    private Duration timeout = Duration.ofSeconds(10);

    private Builder() {}

    /**
     * Configures the server as {@link Agent.Builder} does: its types, its controllers, and for
     * timing tests a {@link io.setpoint.controller.time.ManualTicker} to advance instead of
     * waiting. It listens on a free port.
     */
    public Builder agent(Consumer<Agent.Builder> agent) {
      this.agent = this.agent.andThen(Objects.requireNonNull(agent, "agent"));
      return this;
    }

    /** How long the await helpers wait (default 10 s). */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    public SetpointExtension build() {
      return new SetpointExtension(this);
    }
  }
}
