package io.setpoint.testing.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.storage.raft.RaftConfig;
import io.setpoint.testing.SetpointExtension;
import io.setpoint.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three manager processes ({@link IntervalRecorder}) elect one to run a SINGLETON controller while
 * the test pauses the leader with SIGSTOP and resumes it, or kills it with SIGKILL, round after
 * round. Every reconcile records the store revisions of its first and last write; the intervals
 * of different terms must never overlap, and a write from a leader resumed after losing its lease
 * must be refused.
 */
class ElectionProcessesTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int ROUNDS = 4;

  // A durable agent, its store a one-member Raft group: the fence is checked by the Raft state
  // machine as it applies each write, the way a production agent checks it.
  @TempDir static Path data;

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register)
          .raft(RaftConfig.of("election-n1", data.resolve("n1"), FreePorts.loopback(), Map.of())))
      .build();

  private final Map<String, Recorder> recorders = new LinkedHashMap<>();
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private int started;

  /** One child process and what it printed. */
  private record Recorder(String holder, Process process, Writer stdin, List<String> output) {
    long pid() {
      return process.pid();
    }
  }

  /** One stored reconcile: the revisions of its first and last write. */
  private record Interval(String holder, long epoch, long began, long done) {
    boolean overlaps(Interval other) {
      return began <= other.done && other.began <= done;
    }
  }

  @AfterEach
  void stopRecorders() throws Exception {
    for (Recorder r : recorders.values()) {
      signal("CONT", r.pid());
      r.process().destroyForcibly();
      r.process().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void pausedAndKilledLeadersNeverReconcileAtTheSameTimeAsTheirSuccessor() throws Exception {
    setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "tick"))
        .setData(Any.pack(RecordLabel.newBuilder().setName("Tick").build())).build());
    for (int i = 0; i < 3; i++) {
      start();
    }
    List<String> lateWrites = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      String leader = awaitLeaderWithReconciles(null);
      Recorder held = recorders.get(leader);
      if (round % 2 == 0) {
        signal("STOP", held.pid());
        String successor = awaitLeaderWithReconciles(leader);
        assertThat(successor).isNotEqualTo(leader);
        signal("CONT", held.pid());
        // The resumed process writes with the fenced client its controller had before the pause.
        int before = held.output().size();
        held.stdin().write("write\n");
        held.stdin().flush();
        await().atMost(WAIT).until(() -> held.output().subList(before, held.output().size()).stream()
            .anyMatch(l -> l.startsWith("late ")));
        lateWrites.add(held.output().subList(before, held.output().size()).stream()
            .filter(l -> l.startsWith("late ")).findFirst().orElseThrow());
      } else {
        held.process().destroyForcibly(); // SIGKILL
        held.process().waitFor(10, TimeUnit.SECONDS);
        recorders.remove(leader);
        String successor = awaitLeaderWithReconciles(leader);
        assertThat(successor).isNotEqualTo(leader);
        start();
      }
    }

    assertThat(lateWrites).as("every resumed, deposed leader's write").hasSize(ROUNDS / 2)
        .allMatch(l -> l.equals("late refused FAILED_PRECONDITION"));
    List<Interval> intervals = intervals();
    assertThat(intervals.stream().map(i -> i.holder() + "@" + i.epoch()).distinct().count())
        .as("terms that reconciled").isGreaterThanOrEqualTo(ROUNDS + 1);
    for (Interval a : intervals) {
      for (Interval b : intervals) {
        if (a.epoch() != b.epoch()) {
          assertThat(a.overlaps(b)).as("%s overlaps %s", a, b).isFalse();
        }
      }
    }
  }

  /**
   * Waits until a process other than {@code not} holds the lease and has stored three reconciles
   * in its current term, and returns its holder name.
   */
  private String awaitLeaderWithReconciles(String not) {
    String[] found = new String[1];
    await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
      Lease lease = lease();
      if (lease == null || lease.getHolder().equals(not) || !recorders.containsKey(lease.getHolder())) {
        return false;
      }
      long inTerm = intervals().stream()
          .filter(i -> i.holder().equals(lease.getHolder()) && i.epoch() == lease.getEpoch()).count();
      found[0] = lease.getHolder();
      return inTerm >= 3;
    });
    return found[0];
  }

  private Lease lease() throws InvalidProtocolBufferException {
    var stored = setpoint.client().findConsistent(Ids.of(Types.LEASE, IntervalRecorder.ELECTION));
    return stored.isEmpty() ? null : stored.get().getData().unpack(Lease.class);
  }

  private List<Interval> intervals() {
    List<Interval> out = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.split(" ");
      if (f.length == 5 && f[0].equals("stored")) {
        out.add(new Interval(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
      }
    }
    return out;
  }

  private void start() throws IOException {
    String holder = "p" + (++started);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        IntervalRecorder.class.getName(), "127.0.0.1:" + setpoint.agent().port(), holder)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    List<String> output = new CopyOnWriteArrayList<>();
    Thread.ofVirtual().name("recorder-" + holder).start(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          output.add(line);
          lines.add(line);
        }
      } catch (IOException e) {
        // The process was killed: what it printed before is kept.
      }
    });
    recorders.put(holder, new Recorder(holder, process,
        new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), output));
  }

  private static void signal(String signal, long pid) throws Exception {
    new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor(10, TimeUnit.SECONDS);
  }
}
