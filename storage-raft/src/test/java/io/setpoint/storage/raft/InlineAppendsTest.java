package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.thirdparty.io.grpc.Context;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.FastThreadLocalThread;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Followers handle the leader's appends on the connection's I/O thread once gRPC has started the
 * call. gRPC looks a call up and starts it on its shared executor, and that executor thread also
 * runs whatever messages of the call arrived meanwhile (often a stream's first heartbeat) before it
 * lets go; every later message runs on the I/O thread. Ratis runs its test hook for appends at the
 * start of that handling, on the thread that handles it, inside the call's gRPC context, which
 * tells the calls apart.
 */
class InlineAppendsTest {
  /** Ratis's name for the hook at the start of a member's append handling. */
  private static final String APPEND_ENTRIES = "RaftServerImpl.appendEntries";

  private record Handled(Context call, Thread thread, int entries) {
    boolean onIoThread() {
      return thread instanceof FastThreadLocalThread;
    }
  }

  @AfterEach
  void removeHook() {
    CodeInjectionForTesting.remove(APPEND_ENTRIES);
  }

  @Test
  void followersTakeAppendsOnTheirIoThreadsOnceACallHasStarted() {
    List<Handled> handled = new CopyOnWriteArrayList<>();
    CodeInjectionForTesting.put(APPEND_ENTRIES, (local, remote, args) -> {
      int entries = ((AppendEntriesRequestProto) args[1]).getEntriesCount();
      handled.add(new Handled(Context.current(), Thread.currentThread(), entries));
      return true;
    });
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, RaftConfig.Tuning.DEFAULT)) {
      RaftBackend leader = cluster.awaitLeader();
      for (int i = 0; i < 10; i++) {
        leader.writeCas(resource(id("inline-" + i)));
      }
      await().atMost(Duration.ofSeconds(10))
          .until(() -> handled.stream().anyMatch(h -> h.entries() > 0 && h.onIoThread()));
    }

    assertThat(handled).as("appends handled inside their call's context")
        .noneMatch(h -> h.call() == Context.ROOT);
    Map<Context, Set<Thread>> offIoThreads = handled.stream()
        .filter(h -> !h.onIoThread())
        .collect(Collectors.groupingBy(Handled::call,
            Collectors.mapping(Handled::thread, Collectors.toSet())));
    assertThat(offIoThreads.values()).allSatisfy(threads -> assertThat(threads)
        .as("the threads besides I/O threads that handled one call's appends")
        .singleElement()
        .satisfies(t -> assertThat(t.getName()).startsWith("grpc-default-executor")));
  }
}
