package io.setpoint.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Servers the generator started on loopback, with their temporary directory (data and logs).
 * {@link #close()} stops them and deletes the directory; a JVM shutdown hook does the same for
 * every cluster still open, so Ctrl-C leaves no server or data behind.
 */
public final class LocalCluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalCluster.class);

  private static final Set<LocalCluster> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
      for (LocalCluster cluster : OPEN) {
        cluster.close();
      }
    }));
  }

  private final String system;
  private final Path dir;
  private final List<ServerProcess> members = new ArrayList<>();
  private final List<String> endpoints = new ArrayList<>();
  private final List<URI> readiness = new ArrayList<>();
  private boolean closed;

  /** A cluster with no members yet, owning {@code dir}. */
  LocalCluster(String system, Path dir) {
    this.system = system;
    this.dir = dir;
    OPEN.add(this);
  }

  static Path tempDir(String system) {
    try {
      return Files.createTempDirectory("setpoint-bench-" + system + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }

  /** Adds a member that is ready when {@code ready} answers 200. */
  synchronized void add(ServerProcess member, String endpoint, URI ready) {
    if (closed) {
      member.close();
      throw new IllegalStateException(system + " cluster is closed");
    }
    members.add(member);
    endpoints.add(endpoint);
    readiness.add(ready);
  }

  /** How many members it has. */
  public synchronized int size() {
    return members.size();
  }

  private synchronized ServerProcess member(int index) {
    return members.get(index);
  }

  /** Whether member {@code index} (from 0) is running. */
  public boolean isAlive(int index) {
    return member(index).isAlive();
  }

  /** Sends member {@code index} SIGKILL and waits until it has exited. */
  public void kill(int index) throws InterruptedException {
    member(index).kill();
  }

  /**
   * Stops member {@code index} as an operator would: SIGTERM, and SIGKILL only if it has not exited
   * within {@code grace}.
   *
   * @return whether it exited by itself
   */
  public boolean terminate(int index, Duration grace) {
    return member(index).stop(grace);
  }

  /** Sends member {@code index} SIGSTOP: it keeps its sockets but answers nothing. */
  public void pause(int index) throws InterruptedException {
    member(index).pause(true);
  }

  /** Sends member {@code index} SIGCONT. */
  public void resume(int index) throws InterruptedException {
    member(index).pause(false);
  }

  /**
   * Starts member {@code index} again (it must have exited) with the command, data directory and
   * ports it had, and waits until it is ready.
   */
  public void restart(int index, Duration timeout) throws InterruptedException {
    restart(index, UnaryOperator.identity(), timeout);
  }

  /**
   * Starts member {@code index} again (it must have exited) with its command changed by {@code
   * edited}, on the same ports, and waits until it is ready.
   */
  public void restart(int index, UnaryOperator<List<String>> edited, Duration timeout) throws InterruptedException {
    ServerProcess restarted;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException(system + " cluster is closed");
      }
      ServerProcess old = members.get(index);
      if (old.isAlive()) {
        throw new IllegalStateException(old.name() + " is still running");
      }
      restarted = old.restart(edited);
      members.set(index, restarted);
    }
    restarted.awaitHttpOk(readiness.get(index), timeout);
  }

  /** The command member {@code index} runs. */
  public synchronized List<String> command(int index) {
    return member(index).command();
  }

  /** {@code setpoint} or {@code etcd}. */
  public String system() {
    return system;
  }

  /** The gRPC {@code host:port} of each member, in member order. */
  public synchronized List<String> endpoints() {
    return List.copyOf(endpoints);
  }

  /** The directory holding the members' data and logs (deleted on close). */
  public Path dir() {
    return dir;
  }

  /** The process ids of the members. */
  public synchronized List<Long> pids() {
    return members.stream().map(ServerProcess::pid).toList();
  }

  /** The CPU time the members have used so far, all together; {@link CpuTime#UNKNOWN} once one has exited. */
  public synchronized CpuTime cpu() {
    CpuTime total = CpuTime.ZERO;
    for (ServerProcess member : members) {
      total = total.plus(CpuTime.of(member.pid()));
    }
    return total;
  }

  /** Whether every member is still running. */
  public synchronized boolean allAlive() {
    return !members.isEmpty() && members.stream().allMatch(ServerProcess::isAlive);
  }

  /**
   * How long stopping took: from SIGTERM to every member's exit.
   *
   * @param killed how many members did not exit within the grace period and were killed
   */
  public record Stopped(Duration took, int killed) {}

  /**
   * Stops every member (in parallel: SIGTERM, then SIGKILL after a grace period) and says how long
   * it took; the directory stays until {@link #close()}. Members already stopped count as exited.
   */
  public Stopped stop() {
    List<ServerProcess> stopping;
    synchronized (this) {
      stopping = List.copyOf(members);
    }
    long start = System.nanoTime();
    List<Thread> stoppers = new ArrayList<>();
    AtomicInteger killed = new AtomicInteger();
    for (ServerProcess member : stopping) {
      stoppers.add(Thread.ofPlatform().name("stop-" + member.name()).start(() -> {
        if (!member.stop()) {
          killed.incrementAndGet();
        }
      }));
    }
    for (Thread stopper : stoppers) {
      try {
        stopper.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return new Stopped(Duration.ofNanos(System.nanoTime() - start), killed.get());
  }

  /** Stops every member (in parallel) and deletes the directory. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    stop();
    deleteRecursively(dir);
    OPEN.remove(this);
  }

  static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      log.warn("cannot delete {}: {}", root, e.toString());
    }
  }
}
