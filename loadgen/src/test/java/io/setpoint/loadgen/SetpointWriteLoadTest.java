package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The generator against a Setpoint agent in this process (in-memory store), over a real socket:
 * always runs, so the generator is tested where etcd is not installed.
 */
@Timeout(60)
class SetpointWriteLoadTest extends TargetContract {
  private static Agent agent;
  private static SetpointTarget target;

  @BeforeAll
  static void start() {
    // ACLs off, as the benchmark runs its agents (-no-acls) and etcd runs without auth.
    agent = Agent.builder().port(0).types(DemoTypes::register).acls(false).start();
    target = SetpointTarget.connect(List.of("127.0.0.1:" + agent.port()), "", 10_000);
  }

  @AfterAll
  static void stop() {
    if (target != null) {
      target.close();
    }
    if (agent != null) {
      agent.close();
    }
  }

  @Override
  Target target() {
    return target;
  }

  @Test
  void putsForTheWholeWindowWithoutErrors() throws InterruptedException {
    WriteLoad.awaitWritable(target, Duration.ofSeconds(10));

    Result result = WriteLoad.run(target, Op.PUT, SHORT);

    assertMeasuredWithoutErrors(result, Op.PUT);
    // Every client wrote its own keys, with data of the advertised size.
    Resource stored = agent.client().read(Ids.of(DemoTypes.ARTIST, "c003-k0019"));
    assertThat(stored.getData().getSerializedSize()).isEqualTo(Target.PAYLOAD_BYTES);
  }

  @Test
  void withAclsOnTheTargetWritesWithABootstrappedToken() throws InterruptedException {
    try (Agent secured = Agent.builder().port(0).types(DemoTypes::register).start()) {
      String endpoint = "127.0.0.1:" + secured.port();
      String secret = SetpointTarget.bootstrapToken(endpoint, Duration.ofSeconds(10));

      try (SetpointTarget anonymous = SetpointTarget.connect(List.of(endpoint), "", 10_000);
          SetpointTarget withToken = SetpointTarget.connect(List.of(endpoint), secret, 10_000)) {
        assertThatThrownBy(() -> anonymous.writer(0).put("acl-probe", 1))
            .isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        assertThat(withToken.writer(0).put("acl-probe", 1)).isPositive();
      }
    }
  }
}
