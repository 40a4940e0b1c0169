package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Java client reaches an agent back from an outage with its first call. While the agent was
 * away, a call failed, and gRPC kept dialling it by itself; its port took each connection and
 * closed it at once, as a starting process or a proxy can. Each failed dial made gRPC wait longer
 * before the next (after five, five seconds or more, more than the call's deadline), and calls failed
 * at once while it waited.
 */
class ClientReconnectTest {
  private static final int FAILED_DIALS = 5;
  private static final Duration DEADLINE = Duration.ofSeconds(2);

  @Test
  void theFirstCallAfterTheAgentIsBackReachesIt() throws Exception {
    int port = FreePorts.loopback();
    Agent agent = start(port);
    try (SetpointClient client = SetpointClient.builder().address("127.0.0.1:" + port).deadline(DEADLINE).build()) {
      assertThat(client.types().getTypesList()).isNotEmpty();
      agent.close();

      AtomicInteger dials = new AtomicInteger();
      try (ServerSocket away = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
        Thread refuser = Thread.ofVirtual().start(() -> closeEach(away, dials));
        // A call while the agent is away fails, and from then on gRPC dials again by itself.
        assertThatThrownBy(client::types).isInstanceOfSatisfying(SetpointException.class,
            e -> assertThat(e.code()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED));
        await().atMost(Duration.ofSeconds(60)).until(() -> dials.get() >= FAILED_DIALS);
        away.close();
        refuser.join();
      }

      agent = start(port);
      assertThat(client.types().getTypesList()).as("the first call after the agent is back").isNotEmpty();
    } finally {
      agent.close();
    }
  }

  private static Agent start(int port) {
    return Agent.builder().port(port).acls(false).types(DemoTypes::register).start();
  }

  /** Takes each connection and closes it, counting them, until {@code socket} is closed. */
  private static void closeEach(ServerSocket socket, AtomicInteger dials) {
    while (!socket.isClosed()) {
      try (Socket dialled = socket.accept()) {
        dials.incrementAndGet();
      } catch (IOException e) {
        if (!socket.isClosed()) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
