package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Raft members in this JVM on 127.0.0.1, each with its own free port and data directory under a
 * temporary root that {@link #close()} deletes. Members can be stopped and restarted on the same
 * directory and port.
 */
final class TestCluster implements AutoCloseable {
  /** Short timeouts, so that elections take a fraction of a second. */
  static final RaftConfig.Tuning FAST =
      RaftConfig.Tuning.DEFAULT
          .withElectionTimeout(Duration.ofMillis(200), Duration.ofMillis(400))
          .withRequestTimeout(Duration.ofSeconds(10));

  static final Duration STARTUP = Duration.ofSeconds(20);

  /**
   * The default tuning with the leader's heartbeats {@code interval} apart: Ratis heartbeats a
   * follower half an election timeout after it last sent it anything.
   */
  static RaftConfig.Tuning heartbeatsEvery(Duration interval) {
    return RaftConfig.Tuning.DEFAULT.withElectionTimeout(interval.multipliedBy(2), interval.multipliedBy(3));
  }

  /** Node names are unique in the JVM: Ratis registers a JMX bean per member name. */
  private static final java.util.concurrent.atomic.AtomicInteger CLUSTERS = new java.util.concurrent.atomic.AtomicInteger();

  /** A one-member cluster's configuration in {@code dataDir}, on a free port, with {@link #FAST} tuning. */
  static RaftConfig solo(Path dataDir) {
    String name = "solo" + CLUSTERS.incrementAndGet();
    int port = FreePorts.loopback();
    return new RaftConfig(name, dataDir, port, Map.of(name, "127.0.0.1:" + port), Limits.DEFAULT, FAST);
  }

  private final Path root;
  private final Map<String, String> peers = new LinkedHashMap<>();
  private final Map<String, RaftConfig> configs = new LinkedHashMap<>();
  private final Map<String, RaftBackend> running = new LinkedHashMap<>();
  private final Set<RaftCustomization> off;

  private TestCluster(Path root, Set<RaftCustomization> off) {
    this.root = root;
    this.off = off;
  }

  /** Starts {@code size} members and waits until one of them leads. */
  static TestCluster start(int size, Limits limits, RaftConfig.Tuning tuning) {
    return start(size, size, limits, tuning);
  }

  /**
   * Configures {@code size} founding members, starts the first {@code started} and waits until one
   * of them leads; the others are started later with {@link #startMember}.
   */
  static TestCluster start(int size, int started, Limits limits, RaftConfig.Tuning tuning) {
    return start(size, started, limits, tuning, Set.of());
  }

  /** {@link #start(int, Limits, RaftConfig.Tuning)} with every member's customizations in {@code off} turned off. */
  static TestCluster startWithout(Set<RaftCustomization> off, int size, RaftConfig.Tuning tuning) {
    return start(size, size, Limits.DEFAULT, tuning, off);
  }

  private static TestCluster start(int size, int started, Limits limits, RaftConfig.Tuning tuning, Set<RaftCustomization> off) {
    TestCluster cluster;
    try {
      cluster = new TestCluster(Files.createTempDirectory("setpoint-raft-"), Set.copyOf(off));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      List<Integer> ports = FreePorts.loopback(size);
      int id = CLUSTERS.incrementAndGet();
      for (int i = 0; i < size; i++) {
        cluster.peers.put("c" + id + "n" + (i + 1), "127.0.0.1:" + ports.get(i));
      }
      int i = 0;
      for (String name : cluster.peers.keySet()) {
        RaftConfig config =
            new RaftConfig(name, cluster.root.resolve(name), ports.get(i++), cluster.peers, limits, tuning);
        cluster.configs.put(name, config);
      }
      cluster.configs.keySet().stream().limit(started).toList().parallelStream().forEach(cluster::startMember);
      cluster.awaitLeader();
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** (Re)starts the member {@code name} on its directory and port. */
  RaftBackend startMember(String name) {
    RaftBackend backend = RaftBackend.start(configs.get(name), batch -> {}, off);
    synchronized (running) {
      running.put(name, backend);
    }
    return backend;
  }

  /**
   * Starts a new member {@code name} that {@linkplain RaftConfig#joining() joins}: on a free port
   * and a new directory, with the first member's limits and tuning; it serves once a member adds it.
   */
  RaftBackend startJoining(String name) {
    int port = FreePorts.loopback();
    RaftConfig first = configs.values().iterator().next();
    RaftConfig config = new RaftConfig(name, root.resolve(name), port, Map.of(name, "127.0.0.1:" + port), first.limits(),
        first.tuning()).joining();
    configs.put(name, config);
    return startMember(name);
  }

  /**
   * Starts the member {@code name} again on its directory and port, {@linkplain RaftConfig#joining()
   * joining}: as {@code setpoint agent -join} brings back a member that lost its data.
   */
  RaftBackend restartJoining(String name) {
    RaftConfig founding = configs.get(name);
    configs.put(name, new RaftConfig(name, founding.dataDir(), founding.raftPort(), Map.of(name, address(name)),
        founding.limits(), founding.tuning()).joining());
    return startMember(name);
  }

  /** The Raft address of the member {@code name}. */
  String address(String name) {
    return configs.get(name).peers().get(name);
  }

  /** A name for a new member, unique in this JVM like the founding members'. */
  String newName(String suffix) {
    String first = configs.keySet().iterator().next();
    return first.substring(0, first.lastIndexOf('n')) + suffix;
  }

  /** Stops the member {@code name}; its data directory stays. */
  void stopMember(String name) {
    RaftBackend backend;
    synchronized (running) {
      backend = running.remove(name);
    }
    if (backend != null) {
      backend.close();
    }
  }

  /** The configuration the member {@code name} starts with. */
  RaftConfig config(String name) {
    return configs.get(name);
  }

  RaftBackend member(String name) {
    synchronized (running) {
      return running.get(name);
    }
  }

  List<RaftBackend> members() {
    synchronized (running) {
      return new ArrayList<>(running.values());
    }
  }

  /** Waits until a running member leads and every running member knows it, and returns it. */
  RaftBackend awaitLeader() {
    return await()
        .atMost(STARTUP)
        .until(
            () -> {
              List<RaftBackend> all = members();
              RaftBackend leader = all.stream().filter(RaftBackend::isLeader).findFirst().orElse(null);
              boolean agreed =
                  leader != null
                      && all.stream().allMatch(b -> b.leader().equals(java.util.Optional.of(leader.nodeName())));
              return agreed ? leader : null;
            },
            leader -> leader != null);
  }

  /**
   * A new resource named {@code prefix} and a number, written through the leader once a write is
   * acknowledged. One lost to a change of leader may still be applied, so each attempt takes the
   * next name rather than collide with it.
   */
  Resource writeNew(String prefix) {
    AtomicInteger attempts = new AtomicInteger();
    return await().atMost(STARTUP).ignoreExceptions()
        .until(() -> awaitLeader().writeCas(resource(id(prefix + "-" + attempts.incrementAndGet()))), r -> true);
  }

  /** A running member that does not lead. */
  RaftBackend follower() {
    RaftBackend leader = awaitLeader();
    return members().stream().filter(b -> b != leader).findFirst().orElseThrow();
  }

  @Override
  public void close() {
    members().parallelStream().forEach(b -> stopMember(b.nodeName()));
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
