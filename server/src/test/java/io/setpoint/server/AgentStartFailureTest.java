package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.memory.MemoryBackend;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** An agent that fails late in its start closes what it had opened: the store, the port, its threads. */
class AgentStartFailureTest {
  /** A memory backend that remembers being closed. */
  private static final class Tracked extends ForwardingBackend {
    final AtomicBoolean closed = new AtomicBoolean();

    Tracked() {
      super(new MemoryBackend());
    }

    @Override
    public void close() {
      closed.set(true);
      super.close();
    }
  }

  private static boolean mirrorThreadsAlive() {
    return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("setpoint-mirror-"));
  }

  @Test
  void aTakenPortClosesTheStoreAndStopsTheTypeMirror() throws IOException {
    Tracked store = new Tracked();
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(() -> Agent.builder().port(taken.getLocalPort()).acls(false).backend(store).start())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort());
    }
    assertThat(store.closed).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> !mirrorThreadsAlive());
  }

  @Test
  void aControllersHookThatThrowsFreesThePortAndClosesTheStore() throws IOException {
    Tracked store = new Tracked();
    int port;
    try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    assertThatThrownBy(() -> Agent.builder().port(port).acls(false).backend(store)
            .controllers(manager -> {
              throw new IllegalStateException("no controllers today");
            })
            .start())
        .hasMessage("no controllers today");
    assertThat(store.closed).isTrue();
    // The agent was listening when the hook failed: the port is free again.
    try (ServerSocket again = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> !mirrorThreadsAlive());
  }
}
