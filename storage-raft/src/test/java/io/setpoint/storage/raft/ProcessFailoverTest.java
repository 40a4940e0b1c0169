package io.setpoint.storage.raft;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.testkit.FreePorts;
import io.setpoint.testkit.KeyHistory;
import io.setpoint.testkit.KeyHistory.Op;
import io.setpoint.testkit.KeyHistory.Result;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover with real process death: three members, each a JVM of its own ({@link
 * ClusterMemberProcess}), serve six concurrent clients that read and compare-and-swap-increment
 * three registers, each client on a random live member per operation. Mid-run the leader is killed
 * with SIGKILL; writes must resume through the survivors. The killed member is then restarted on
 * its data directory and the clients carry on with it. Afterwards:
 *
 * <ul>
 *   <li>the recorded history of each register (strong reads and CAS writes, a write that failed
 *       with {@code UNAVAILABLE} or got no answer counted as possibly applied) is linearizable;
 *   <li>no acknowledged write is lost: the final value of each register, read strongly on every
 *       member, descends through the chain of writes from every acknowledged one, and its count is
 *       the length of that chain;
 *   <li>writes were acknowledged after the kill, and the restarted member caught up.
 * </ul>
 */
class ProcessFailoverTest {
  private static final List<String> KEYS = List.of("r0", "r1", "r2");
  private static final int CLIENTS = 6;
  /** Acknowledged writes wanted in each phase. */
  private static final int WRITES_BEFORE_KILL = 30;
  private static final int WRITES_AFTER_KILL = 20;
  private static final int WRITES_AFTER_REJOIN = 20;

  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Duration PHASE = Duration.ofSeconds(30);
  /**
   * How long a restarted member may take to hear from the leader: about one election timeout once
   * it listens (the leader pauses that long between attempts to reach it), generous for a loaded
   * machine.
   */
  private static final Duration REJOIN = Duration.ofSeconds(45);
  /** Longer than a member's request timeout, so a member answers before the client gives up. */
  private static final int REPLY_TIMEOUT_MS =
      (int) ClusterMemberProcess.TUNING.requestTimeout().multipliedBy(2).toMillis();

  @TempDir Path dir;

  private final List<Member> members = new ArrayList<>();
  private final Map<String, KeyHistory> histories = new LinkedHashMap<>();
  private final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
  private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
  /** Operations that took long or failed, for the report of a failed run. */
  private final Queue<String> trace = new ConcurrentLinkedQueue<>();
  private final long origin = System.nanoTime();

  /** A CAS write the cluster acknowledged through {@code member}: called and answered at these nanoTimes. */
  private record Ack(String key, String value, long call, long ret, String member) {}

  @AfterEach
  void destroyMembers() throws InterruptedException {
    for (Member m : members) {
      m.destroy();
    }
  }

  @Test
  // A separate thread, so that the timeout also ends a read blocked on a child or a socket.
  @Timeout(value = 120, unit = SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void sigkilledLeaderLosesNoAcknowledgedWriteAndHistoryStaysLinearizable() throws Throwable {
    try {
      run();
    } catch (Throwable t) {
      System.err.println("---- slow or failed operations (ms since start, ms taken, member, request: answer)");
      trace.forEach(System.err::println);
      dumpLogs();
      throw t;
    }
  }

  private void run() throws Exception {
    List<Integer> ports = FreePorts.loopback(3);
    for (int i = 0; i < 3; i++) {
      String name = "n" + (i + 1);
      members.add(new Member(name, ports.get(i), dir.resolve(name), dir.resolve(name + ".log").toFile()));
    }
    String peers =
        members.stream().map(m -> m.name + "=127.0.0.1:" + m.raftPort).collect(Collectors.joining(","));
    for (Member m : members) {
      m.launch(peers);
    }
    for (Member m : members) {
      m.awaitReady();
      m.serving = true;
    }
    Member first = awaitAgreedLeader(STARTUP);
    long ready = System.nanoTime();
    note("cluster up, %s leads", first.name);

    // Every register starts at count 0; its creation is the first operation of its history.
    for (String key : KEYS) {
      KeyHistory history = new KeyHistory();
      histories.put(key, history);
      String value = "0:init";
      long call = System.nanoTime();
      String reply = first.ask("CAS " + key + " - " + value);
      long ret = System.nanoTime();
      assertThat(reply).as("creating %s", key).startsWith("OK ");
      history.cas(call, ret, Result.OK, null, value);
      acks.add(new Ack(key, value, call, ret, first.name));
    }

    AtomicBoolean running = new AtomicBoolean(true);
    Member killed;
    long killedAt;
    long restartedAt;
    long rejoinedAt;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        clients.add(pool.submit(() -> runClient(client, running)));
      }
      try {
        awaitWrites("before the kill", ready, WRITES_BEFORE_KILL, null);

        killed = awaitAgreedLeader(PHASE);
        killed.kill();
        killedAt = System.nanoTime();
        note("killed the leader %s", killed.name);
        Member next = awaitAgreedLeader(PHASE);
        note("%s leads", next.name);
        awaitWrites("after the kill", killedAt, WRITES_AFTER_KILL, null);

        // Restart it soon: the longer a member is away, the longer the leader backs off from it.
        killed.launch(peers);
        killed.awaitReady();
        restartedAt = System.nanoTime();
        note("restarted %s", killed.name);
        // It rejoins once it hears from the leader; only then do clients use it.
        awaitAgreedLeader(REJOIN);
        rejoinedAt = System.nanoTime();
        killed.serving = true;
        note("%s knows the leader", killed.name);
        awaitWrites("after the rejoin", rejoinedAt, WRITES_AFTER_REJOIN, killed);
      } finally {
        running.set(false);
      }
      for (Future<?> f : clients) {
        f.get(REPLY_TIMEOUT_MS + 10_000L, MILLISECONDS);
      }
    }
    note("clients stopped");

    // Final strong reads on every member, the restarted one included: the same value everywhere.
    Map<String, String> finals = new LinkedHashMap<>();
    for (String key : KEYS) {
      for (Member m : members) {
        String value = finalRead(m, key);
        String before = finals.putIfAbsent(key, value);
        assertThat(value)
            .as("final value of %s on %s", key, m.name)
            .isEqualTo(before == null ? value : before);
      }
    }
    // With the clients stopped, every member reaches the same store revision.
    await("every member at the same revision")
        .atMost(PHASE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              Set<String> revisions =
                  members.stream().map(m -> m.tryAsk("REVISION")).collect(Collectors.toSet());
              return revisions.size() == 1 && revisions.iterator().next().startsWith("OK ");
            });

    assertThat(unexpected).as("unexpected answers").isEmpty();
    long writesAfterKill = acks.stream().filter(a -> a.call() > killedAt).count();
    assertThat(writesAfterKill).as("writes acknowledged after the leader was killed").isPositive();
    long firstAfterKill =
        acks.stream().filter(a -> a.call() > killedAt).mapToLong(Ack::ret).min().orElseThrow();

    long checking = System.nanoTime();
    for (String key : KEYS) {
      KeyHistory history = histories.get(key);
      List<Op> ops = history.ops();
      assertThat(history.isLinearizable())
          .as("history of %s (%d operations) is linearizable", key, ops.size())
          .isTrue();
      checkNoAcknowledgedWriteLost(key, ops, finals.get(key));
    }
    long checked = System.nanoTime();

    Map<Result, Long> byResult =
        histories.values().stream()
            .flatMap(h -> h.ops().stream())
            .collect(Collectors.groupingBy(Op::result, Collectors.counting()));
    note(
        "passed: killed leader %s; operations %s, %d writes acknowledged after the kill; final values %s;"
            + " first write after the kill answered after %d ms; restarted member heard from the leader"
            + " after %d ms; check took %d ms",
        killed.name,
        byResult,
        writesAfterKill,
        finals,
        (firstAfterKill - killedAt) / 1_000_000,
        (rejoinedAt - restartedAt) / 1_000_000,
        (checked - checking) / 1_000_000);
  }

  /** A strong read of {@code key} on {@code m}, retried while unavailable, and recorded. */
  private String finalRead(Member m, String key) {
    return await("final read of " + key + " on " + m.name)
        .atMost(PHASE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              long call = System.nanoTime();
              String reply = m.tryAsk("READ " + key);
              long ret = System.nanoTime();
              if (!reply.startsWith("OK ")) {
                assertThat(reply).as("final read of %s on %s", key, m.name).startsWith("ERR UNAVAILABLE");
                return null;
              }
              String value = reply.split(" ", 3)[2];
              histories.get(key).read(call, ret, value);
              return value;
            },
            value -> value != null);
  }

  /**
   * Follows the final value of {@code key} back through the writes that produced it (values are
   * unique and name their count, so each has one predecessor): every acknowledged write must be on
   * that chain, and the final count must be its length.
   */
  private void checkNoAcknowledgedWriteLost(String key, List<Op> ops, String last) {
    Map<String, String> predecessor = new HashMap<>();
    for (Op op : ops) {
      if (op.result() == Result.OK || op.result() == Result.UNKNOWN) {
        assertThat(predecessor.put(op.value(), op.expected()))
            .as("value %s written once", op.value())
            .isNull();
      }
    }
    Set<String> chain = new HashSet<>();
    for (String v = last; v != null; v = predecessor.get(v)) {
      assertThat(predecessor).as("%s holds %s, which some write wrote", key, v).containsKey(v);
      assertThat(chain.add(v)).as("%s is on the chain of %s once", v, key).isTrue();
    }
    List<String> acked = acks.stream().filter(a -> a.key().equals(key)).map(Ack::value).toList();
    assertThat(chain).as("writes of %s that took effect", key).containsAll(acked);
    assertThat(count(last))
        .as("count of %s is the number of writes that took effect", key)
        .isEqualTo(chain.size() - 1);
  }

  /** A line of the test's timeline on stdout (kept in the surefire report). */
  private void note(String format, Object... args) {
    long ms = (System.nanoTime() - origin) / 1_000_000;
    System.out.printf("ProcessFailoverTest %6d ms: %s%n", ms, String.format(format, args));
  }

  private static int count(String value) {
    return Integer.parseInt(value.substring(0, value.indexOf(':')));
  }

  // ---- the workload

  /**
   * Reads a random register strongly on a random live member, then swaps it to the next count on
   * the same member, until told to stop. Every answer goes into the register's history.
   */
  private void runClient(int client, AtomicBoolean running) {
    SplittableRandom random = new SplittableRandom(client * 7919L + System.nanoTime());
    Map<Member, Conn> conns = new HashMap<>();
    try {
      for (int seq = 0; running.get(); seq++) {
        List<Member> live = members.stream().filter(m -> m.serving).toList();
        Member m = live.get(random.nextInt(live.size()));
        String key = KEYS.get(random.nextInt(KEYS.size()));
        KeyHistory history = histories.get(key);

        long call = System.nanoTime();
        String reply;
        try {
          reply = conn(conns, m).call("READ " + key);
          trace(m, "READ " + key, call, reply);
        } catch (IOException e) {
          trace(m, "READ " + key, call, e.toString());
          drop(conns, m);
          continue; // a read without an answer has no effect; it is left out
        }
        long ret = System.nanoTime();
        String version;
        String current;
        if (reply.startsWith("OK ")) {
          String[] parts = reply.split(" ", 3);
          version = parts[1];
          current = parts[2];
          history.read(call, ret, current);
        } else if (reply.equals("NOTFOUND")) {
          history.read(call, ret, null); // never legal once created: the check will say so
          continue;
        } else {
          expectUnavailable(reply);
          continue;
        }

        String value = (count(current) + 1) + ":c" + client + "." + seq;
        call = System.nanoTime();
        try {
          reply = conn(conns, m).call("CAS " + key + " " + version + " " + value);
          trace(m, "CAS " + key, call, reply);
        } catch (IOException e) {
          trace(m, "CAS " + key, call, e.toString());
          drop(conns, m);
          history.cas(call, System.nanoTime(), Result.UNKNOWN, current, value);
          continue;
        }
        ret = System.nanoTime();
        if (reply.startsWith("OK ")) {
          history.cas(call, ret, Result.OK, current, value);
          acks.add(new Ack(key, value, call, ret, m.name));
        } else if (reply.equals("CONFLICT")) {
          history.cas(call, ret, Result.FAILED, current, value);
        } else {
          expectUnavailable(reply);
          history.cas(call, ret, Result.UNKNOWN, current, value);
        }
      }
    } finally {
      conns.values().forEach(Conn::close);
    }
  }

  private void trace(Member m, String request, long call, String reply) {
    long took = System.nanoTime() - call;
    if (took > 500_000_000L || !(reply.startsWith("OK ") || reply.equals("CONFLICT"))) {
      long at = (call - origin) / 1_000_000;
      trace.add(String.format("%6d %5d %s %s: %s", at, took / 1_000_000, m.name, request, reply));
    }
  }

  private void expectUnavailable(String reply) {
    if (!reply.startsWith("ERR UNAVAILABLE")) {
      unexpected.add(reply);
    }
  }

  private static Conn conn(Map<Member, Conn> conns, Member m) throws IOException {
    Conn conn = conns.get(m);
    int port = m.control;
    if (conn != null && conn.port != port) {
      conn.close(); // the member was restarted
      conn = null;
    }
    if (conn == null) {
      conn = new Conn(port);
      conns.put(m, conn);
    }
    return conn;
  }

  private static void drop(Map<Member, Conn> conns, Member m) {
    Conn conn = conns.remove(m);
    if (conn != null) {
      conn.close();
    }
  }

  /**
   * Waits until {@code n} writes called after {@code since} were acknowledged, and at least a few of
   * them through {@code through} if given.
   */
  private void awaitWrites(String phase, long since, int n, Member through) {
    await(n + " writes acknowledged " + phase)
        .atMost(PHASE)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              List<Ack> after = acks.stream().filter(a -> a.call() > since).toList();
              long viaThrough =
                  through == null ? 3 : after.stream().filter(a -> a.member().equals(through.name)).count();
              return after.size() >= n && viaThrough >= 3;
            });
    note("%d writes acknowledged %s", n, phase);
  }

  /**
   * Waits up to {@code atMost} until a running member leads and every running member names it, and
   * returns it.
   */
  private Member awaitAgreedLeader(Duration atMost) {
    return await("a leader every running member knows")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              Member leader = null;
              Set<String> named = new HashSet<>();
              for (Member m : members) {
                if (!m.running) {
                  continue;
                }
                String[] reply = m.tryAsk("LEADER").split(" ");
                if (!reply[0].equals("OK")) {
                  return null;
                }
                if (reply[1].equals("true")) {
                  leader = m;
                }
                named.add(reply[2]);
              }
              return leader != null && named.equals(Set.of(leader.name)) ? leader : null;
            },
            leader -> leader != null);
  }

  // ---- member processes

  /** One member JVM: its Raft port and data directory stay across restarts. */
  private static final class Member {
    final String name;
    final int raftPort;
    final Path data;
    final File log;
    volatile Process process;
    volatile CompletableFuture<Integer> ready;
    /** The control port of the running process. */
    volatile int control;
    /** Whether the process is running and answers on {@link #control}. */
    volatile boolean running;
    /** Whether clients may pick this member. */
    volatile boolean serving;

    Member(String name, int raftPort, Path data, File log) {
      this.name = name;
      this.raftPort = raftPort;
      this.data = data;
      this.log = log;
    }

    void launch(String peers) throws IOException {
      String java = ProcessHandle.current().info().command().orElse("java");
      Process p =
          new ProcessBuilder(
                  java,
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ClusterMemberProcess.class.getName(),
                  name,
                  data.toString(),
                  Integer.toString(raftPort),
                  peers)
              .redirectError(Redirect.appendTo(log))
              .start();
      process = p;
      CompletableFuture<Integer> port = new CompletableFuture<>();
      ready = port;
      // Its stdin stays open: the member exits when it closes, that is when this JVM goes.
      Thread.ofVirtual()
          .name("stdout-" + name)
          .start(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = out.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                      port.complete(Integer.parseInt(line.substring("READY ".length())));
                    }
                  }
                } catch (IOException ignored) {
                  // The process is gone.
                }
                port.completeExceptionally(new IllegalStateException(name + " exited; see " + log));
              });
    }

    void awaitReady() throws Exception {
      control = ready.get(STARTUP.toMillis(), MILLISECONDS);
      running = true;
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye to the peers. */
    void kill() throws InterruptedException {
      serving = false;
      running = false;
      process.destroyForcibly();
      assertThat(process.waitFor(20, SECONDS)).as("%s died", name).isTrue();
      assertThat(process.exitValue()).as("%s exit status (128 + SIGKILL)", name).isEqualTo(137);
    }

    void destroy() throws InterruptedException {
      serving = false;
      running = false;
      Process p = process;
      if (p != null) {
        p.destroyForcibly();
        p.waitFor(20, SECONDS);
      }
    }

    /** One request on a connection of its own. */
    String ask(String request) throws IOException {
      try (Conn conn = new Conn(control)) {
        return conn.call(request);
      }
    }

    /** {@link #ask}, with a failure as {@code ERR IO ...}. */
    String tryAsk(String request) {
      try {
        return ask(request);
      } catch (IOException e) {
        return "ERR IO " + e;
      }
    }
  }

  /** A connection to a member's control port: one request at a time. */
  private static final class Conn implements Closeable {
    final int port;
    private final Socket socket;
    private final BufferedReader in;
    private final Writer out;

    Conn(int port) throws IOException {
      this.port = port;
      socket = new Socket();
      try {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        socket.setSoTimeout(REPLY_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        socket.close();
        throw e;
      }
    }

    String call(String request) throws IOException {
      out.write(request);
      out.write('\n');
      out.flush();
      String reply = in.readLine();
      if (reply == null) {
        throw new EOFException("the member closed the connection");
      }
      return reply;
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Closed either way.
      }
    }
  }

  private void dumpLogs() {
    for (Member m : members) {
      try {
        List<String> lines = Files.readAllLines(m.log.toPath());
        System.err.println("---- last lines of " + m.name + "'s log (" + lines.size() + " lines)");
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(System.err::println);
      } catch (IOException e) {
        System.err.println("---- no log of " + m.name + ": " + e);
      }
    }
  }
}
