package io.setpoint.loadgen.chaos;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.LocalCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutionException;

/**
 * Runs the phases: waits out the calm window, injects the phase's fault, undoes it after the fault
 * window, measures how soon every member serves writes and consistent reads again, and waits out
 * the heal window.
 */
final class FaultRunner {
  /** How long the probe after a heal keeps trying a member before it says "not flowing". */
  private static final Duration PROBE_BOUND = Duration.ofSeconds(30);
  private static final Duration PROBE_DEADLINE = Duration.ofSeconds(1);
  /** How long a member may take to exit after SIGTERM before it is killed (and the report says so). */
  private static final Duration TERMINATE_GRACE = Duration.ofSeconds(10);
  /** How long a full disk may go unnoticed by its member before the phase gives up on it. */
  private static final Duration DISK_BITES_WITHIN = Duration.ofSeconds(60);
  /** The size of each write that uses up a full disk's reserved log space. */
  private static final int BIG_WRITE_BYTES = 256 << 10;

  private final ChaosConfig config;
  private final Members members;
  private final SplittableRandom random;

  FaultRunner(ChaosConfig config, Members members) {
    this.config = config;
    this.members = members;
    this.random = new SplittableRandom(config.seed());
  }

  Phase run(int number, Fault fault) throws InterruptedException {
    long start = System.nanoTime();
    sleepUntil(start + config.calm().toNanos());
    long faultAt = System.nanoTime();
    String detail = "";
    String error = "";
    try {
      detail = inject(fault);
    } catch (RuntimeException e) {
      error = e.getMessage();
    }
    long healedAt = System.nanoTime();
    List<Long> flowing = probe(number, healedAt);
    sleepUntil(healedAt + config.heal().toNanos());
    return new Phase(number, fault, detail, start, faultAt, healedAt, System.nanoTime(), flowing, error);
  }

  /** Injects {@code fault}, waits the fault window, heals it; says which members it hit. */
  private String inject(Fault fault) throws InterruptedException {
    LocalCluster cluster = members.cluster();
    return switch (fault) {
      case NONE -> {
        sleep(config.window());
        yield "";
      }
      case KILL_FOLLOWER, KILL_LEADER -> {
        int leader = members.awaitLeader(config.startTimeout());
        int victim = fault == Fault.KILL_LEADER ? leader : other(leader);
        members.unreachable(victim);
        cluster.kill(victim);
        sleep(config.window());
        cluster.restart(victim, config.startTimeout());
        members.reachable(victim);
        yield Members.name(victim) + (victim == leader ? "" : ", " + Members.name(leader) + " leading");
      }
      case PAUSE_LEADER -> {
        int leader = members.awaitLeader(config.startTimeout());
        members.unreachable(leader);
        cluster.pause(leader);
        try {
          sleep(config.window());
        } finally {
          cluster.resume(leader);
          members.reachable(leader);
        }
        yield Members.name(leader);
      }
      case PARTITION_LEADER, PARTITION_FOLLOWER, PARTITION_MINORITY -> {
        int leader = members.awaitLeader(config.startTimeout());
        Set<Integer> side = new TreeSet<>();
        side.add(fault == Fault.PARTITION_FOLLOWER ? other(leader) : leader);
        // A minority: the leader and others up to one short of half of them.
        while (fault == Fault.PARTITION_MINORITY && 2 * (side.size() + 1) < members.size()) {
          side.add(other(side));
        }
        Network network = members.network();
        network.partition(side, members.size());
        try {
          sleep(config.window());
        } finally {
          network.heal();
        }
        yield side.stream().map(Members::name).collect(Collectors.joining(", "))
            + " apart from the rest, " + Members.name(leader) + " leading";
      }
      case REPLACE_MEMBER -> {
        int leader = members.awaitLeader(config.startTimeout());
        int victim = random.nextInt(members.size());
        int via = other(victim);
        members.unreachable(victim);
        long removing = System.nanoTime();
        members.remove(victim, via, config.startTimeout());
        long terminating = System.nanoTime();
        boolean clean = cluster.terminate(victim, TERMINATE_GRACE);
        long exited = System.nanoTime();
        sleep(config.window());
        long joining = System.nanoTime();
        AgentProcess.rejoin(cluster, victim, members.endpoints().get(via), config.startTimeout());
        long back = System.nanoTime();
        members.reachable(victim);
        yield Members.name(victim) + (victim == leader ? " (leader)" : ", " + Members.name(leader) + " leading")
            + String.format(Locale.ROOT, ": removed in %.1f s, ", (terminating - removing) / 1e9)
            + (clean ? String.format(Locale.ROOT, "exited in %.1f s", (exited - terminating) / 1e9)
                : "killed: not exited " + TERMINATE_GRACE.toSeconds() + " s after SIGTERM")
            + String.format(Locale.ROOT, ", back through %s and ready in %.1f s", Members.name(via), (back - joining) / 1e9);
      }
      case FULL_DISK -> {
        int leader = members.awaitLeader(config.startTimeout());
        long filling = System.nanoTime();
        long filled = members.disks().fill(leader);
        long full = System.nanoTime();
        long bit;
        try {
          bit = fillLog(leader);
          if (bit >= 0) {
            sleep(config.window());
          }
        } finally {
          members.disks().free(leader);
        }
        yield Members.name(leader) + String.format(Locale.ROOT, ", filled (%d MiB) in %.1f s, ", filled, (full - filling) / 1e9)
            + (bit >= 0 ? String.format(Locale.ROOT, "its log out of space after %d big writes", bit)
                : "its log never out of space within " + DISK_BITES_WITHIN.toSeconds() + " s");
      }
      case ROLLING_RESTART -> {
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < members.size(); i++) {
          int leader = members.leader().orElse(-1);
          members.unreachable(i);
          long terminating = System.nanoTime();
          boolean clean = cluster.terminate(i, TERMINATE_GRACE);
          double exited = (System.nanoTime() - terminating) / 1e9;
          // Started again at once, as an upgrade would: its time down is its restart.
          cluster.restart(i, config.startTimeout());
          members.reachable(i);
          order.append(order.isEmpty() ? "" : ", ").append(Members.name(i)).append(i == leader ? " (leader)" : "")
              .append(clean ? String.format(Locale.ROOT, " exited in %.1f s", exited)
                  : " killed: not exited " + TERMINATE_GRACE.toSeconds() + " s after SIGTERM");
        }
        yield order.toString();
      }
    };
  }

  /**
   * A Raft log writes into space it reserved ahead, so a full disk bites only once that is used
   * up: big writes through member {@code member} use it up, until the member says its disk is full.
   * Says how many it took, or -1 if the disk did not bite within {@link #DISK_BITES_WITHIN}.
   */
  private long fillLog(int member) throws InterruptedException {
    long bound = System.nanoTime() + DISK_BITES_WITHIN.toNanos();
    String bulk = "x".repeat(BIG_WRITE_BYTES);
    try (SetpointClient client = SetpointClient.builder().address(members.endpoints().get(member))
        .deadline(PROBE_DEADLINE).build()) {
      for (long writes = 0; System.nanoTime() < bound; writes++) {
        if (members.readyzSays(member, "is full")) {
          return writes;
        }
        try {
          client.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "chaos-bulk-" + (writes % 64)))
              .setData(Any.pack(Artist.newBuilder().setName("bulk").setDescription(bulk).build())).build());
        } catch (SetpointException e) {
          // Refused or not answered, the disk full perhaps: the next check tells.
        }
      }
    }
    return -1;
  }

  private int other(int leader) {
    return other(Set.of(leader));
  }

  /** A member picked at random outside {@code these}. */
  private int other(Set<Integer> these) {
    List<Integer> rest = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      if (!these.contains(i)) {
        rest.add(i);
      }
    }
    return rest.get(random.nextInt(rest.size()));
  }

  /**
   * Per member, from {@code since}: how long until a blind write and then a consistent read through
   * it both succeed (tried again until they do, for at most {@link #PROBE_BOUND}); all at once.
   */
  private List<Long> probe(int phase, long since) throws InterruptedException {
    List<Long> flowing = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Long>> probes = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        String endpoint = members.endpoints().get(i);
        String name = "probe-" + Members.name(i);
        probes.add(pool.submit(() -> probe(endpoint, name, phase, since)));
      }
      for (Future<Long> probe : probes) {
        try {
          flowing.add(probe.get());
        } catch (ExecutionException e) {
          flowing.add(-1L);
        }
      }
    }
    return flowing;
  }

  private static long probe(String endpoint, String name, int phase, long since) throws InterruptedException {
    ID id = Ids.of(DemoTypes.ARTIST, name);
    long bound = since + PROBE_BOUND.toNanos();
    try (SetpointClient client = SetpointClient.builder().address(endpoint).deadline(PROBE_DEADLINE).build()) {
      for (int attempt = 0; System.nanoTime() < bound; attempt++) {
        try {
          client.write(Resource.newBuilder().setId(id)
              .setData(Any.pack(Artist.newBuilder().setName("phase " + phase + " attempt " + attempt).build())).build());
          client.readConsistent(id);
          return System.nanoTime() - since;
        } catch (SetpointException e) {
          Thread.sleep(20); // not answered: try again, a little later
        }
      }
    }
    return -1;
  }

  private static void sleep(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis());
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left = nanoTime - System.nanoTime();
    if (left > 0) {
      Thread.sleep(Duration.ofNanos(left));
    }
  }
}
