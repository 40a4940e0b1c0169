package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.engine.Limits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.FastThreadLocalThread;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Followers handle the leader's appends on the connection's I/O thread, not on gRPC's executor. Ratis
 * runs its test hook for appends at the start of that handling, on the thread that handles it.
 */
class InlineAppendsTest {
  /** Ratis's name for the hook at the start of a member's append handling. */
  private static final String APPEND_ENTRIES = "RaftServerImpl.appendEntries";

  private record Handled(Thread thread, int entries) {}

  @AfterEach
  void removeHook() {
    CodeInjectionForTesting.remove(APPEND_ENTRIES);
  }

  @Test
  void followersTakeAppendsWithEntriesOnTheirIoThreads() {
    List<Handled> handled = new CopyOnWriteArrayList<>();
    CodeInjectionForTesting.put(APPEND_ENTRIES, (local, remote, args) -> {
      handled.add(new Handled(Thread.currentThread(), ((AppendEntriesRequestProto) args[1]).getEntriesCount()));
      return true;
    });
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, RaftTuning.DEFAULT)) {
      RaftBackend leader = cluster.awaitLeader();
      for (int i = 0; i < 10; i++) {
        leader.writeCas(resource(id("inline-" + i)));
      }
      await().atMost(Duration.ofSeconds(10))
          .until(() -> handled.stream().filter(h -> h.entries() > 0).count() >= 10);
    }

    assertThat(handled).isNotEmpty().allSatisfy(h -> assertThat(h.thread())
        .as("thread %s", h.thread().getName())
        .isInstanceOf(FastThreadLocalThread.class));
  }
}
