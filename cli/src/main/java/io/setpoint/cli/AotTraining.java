package io.setpoint.cli;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The training runs behind the distribution's AOT caches (JDK 25+): what a user does first, so the
 * classes it loads are there, linked, for every later {@code setpoint} JVM from its first
 * instruction. The build records no method profiles: those of a few seconds' training, replayed,
 * made the agents' compiled write path differ from build to build.
 *
 * <p>Two caches, because a JVM loads every class of its cache as it starts: the agent's thousands
 * would cost a short CLI command more than they save it.
 * <ul>
 *   <li>{@code agent CLI_CONFIGURATION}: starts {@code agent -dev} and a durable node in this JVM,
 *       runs the CLI training against them in a JVM of its own, recording into {@code
 *       CLI_CONFIGURATION}, then the clients' in another that records nothing, and stops them.
 *   <li>{@code cli DEV_ADDRESS DURABLE_ADDRESS}: the README's commands against those agents.
 *   <li>{@code clients DEV_ADDRESS DURABLE_ADDRESS}: calls their HTTP API, then writes to each
 *       from a few closed-loop gRPC clients.
 * </ul>
 *
 * <p>The build runs it ({@code cli/pom.xml}, profile {@code aot-cache}); a command that fails
 * fails the build, so it doubles as a smoke test of the distribution.
 */
public final class AotTraining {
  /** How long each agent takes writes from the load clients: long enough to load the whole write path. */
  private static final Duration LOAD = Duration.ofSeconds(4);
  private static final int LOAD_CLIENTS = 4;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final String ARTIST = """
      id: {type: demo.v2.Artist, name: miles-davis}
      metadata:
        label: columbia
      data:
        name: Miles Davis
        groupMembers:
          miles: trumpet
          coltrane: saxophone
      """;

  private AotTraining() {}

  /** {@code agent CLI_CONFIGURATION} or {@code cli DEV_ADDRESS DURABLE_ADDRESS}; exits non-zero when a step fails. */
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("agent")) {
      trainAgents(Path.of(args[1]));
    } else if (args.length == 3 && args[0].equals("cli")) {
      trainCli(args[1], args[2]);
    } else if (args.length == 3 && args[0].equals("clients")) {
      clients(List.of(args[1], args[2]));
    } else {
      System.err.println("usage: AotTraining agent CLI_CONFIGURATION | AotTraining cli|clients DEV_ADDRESS DURABLE_ADDRESS");
      System.exit(2);
    }
    // The agents' non-daemon threads are gone; exit for the JVM to write what it recorded.
    System.exit(0);
  }

  private static void trainAgents(Path cliConfiguration) throws Exception {
    long start = System.nanoTime();
    Path dataDir = Files.createTempDirectory("setpoint-aot-training");
    List<Integer> ports = freePorts(3);
    String dev = "127.0.0.1:" + ports.get(0);
    String durable = "127.0.0.1:" + ports.get(1);
    try (RunningAgent devAgent = RunningAgent.start(List.of("agent", "-dev", "-port", Integer.toString(ports.get(0))));
        RunningAgent durableAgent = RunningAgent.start(List.of("agent", "-data-dir", dataDir.resolve("node").toString(),
            "-port", Integer.toString(ports.get(1)), "-raft-port", Integer.toString(ports.get(2)),
            "-demo-types", "-no-demo-controllers", "-no-acls"))) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      devAgent.awaitReady(http, dev);
      durableAgent.awaitReady(http, durable);
      inOwnJvm("cli", cliConfiguration, dev, durable);
      inOwnJvm("clients", null, dev, durable);
    } finally {
      try (Stream<Path> files = Files.walk(dataDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.out.printf("aot training: agents done in %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /**
   * Runs {@code mode} in a new JVM with this one's java, flags and class path: recording into
   * {@code configuration} when this JVM records too, or recording nothing when that is null.
   */
  private static void inOwnJvm(String mode, Path configuration, String dev, String durable)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("-XX:AOTConfiguration=")) {
        if (configuration != null) {
          command.add("-XX:AOTConfiguration=" + configuration);
        }
      } else if (!(configuration == null && arg.startsWith("-XX:AOTMode="))) {
        command.add(arg);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), AotTraining.class.getName(), mode, dev, durable));
    Process process = new ProcessBuilder(command).inheritIO().start();
    if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("the " + mode + " training did not end within " + TIMEOUT);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException("the " + mode + " training failed (exit " + process.exitValue() + ")");
    }
  }

  /**
   * What clients do to the agents: their HTTP API, then writes from a few closed-loop gRPC clients.
   * In a JVM that records nothing, so that the agents' cache holds what an agent loads and no
   * client's classes.
   */
  private static void clients(List<String> addresses) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (String address : addresses) {
      String nina = "http://" + address + "/api/demo/v2/Artist/nina";
      http(http, HttpRequest.newBuilder(URI.create(nina)).header("Content-Type", "application/json")
          .PUT(HttpRequest.BodyPublishers.ofString(
              "{\"data\": {\"name\": \"Nina Simone\", \"discography\": [\"Pastel Blues\"]}}"))
          .build());
      http(http, HttpRequest.newBuilder(URI.create(nina + "/owned")).build());
      http(http, HttpRequest.newBuilder(URI.create(nina)).DELETE().build());
      http(http, HttpRequest.newBuilder(URI.create("http://" + address + "/metrics")).build());
      load(address);
    }
  }

  private static void trainCli(String dev, String durable) {
    long start = System.nanoTime();
    Main.configureClientJvm();
    run(List.of("--version"), "");
    run(List.of("-h"), "");
    run(List.of("resource", "list", "-h"), "");
    List<String> at = List.of("-address", dev);
    run(concat(List.of("resource", "apply", "-f", "-"), at), ARTIST);
    run(concat(List.of("resource", "list", "demo.v2.Artist"), at), "");
    run(concat(List.of("resource", "read", "demo.v2.Artist", "miles-davis"), at), "");
    run(concat(List.of("resource", "read", "demo.v2.Artist", "miles-davis", "-o", "yaml"), at), "");
    run(concat(List.of("resource", "list", "demo.v2.Album", "-partition", "*", "-namespace", "*"), at), "");
    run(concat(List.of("type", "list"), at), "");
    run(concat(List.of("controller", "list"), at), "");
    run(concat(List.of("resource", "delete", "demo.v2.Artist", "miles-davis"), at), "");
    run(List.of("operator", "raft", "list-peers", "-address", durable), "");
    System.out.printf("aot training: CLI commands done in %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /**
   * Puts, then compare-and-swaps, from a few closed-loop gRPC clients, each on keys of its own: the
   * path of a busy agent, a conflict's included.
   */
  private static void load(String address) throws InterruptedException {
    try (SetpointClient client = SetpointClient.connect(address)) {
      awaitWritable(client);
      for (boolean cas : new boolean[] {false, true}) {
        LongAdder writes = new LongAdder();
        long until = System.nanoTime() + LOAD.dividedBy(2).toNanos();
        List<Thread> clients = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int c = 0; c < LOAD_CLIENTS; c++) {
          String prefix = "aot-" + c + "-";
          clients.add(Thread.ofVirtual().start(() -> {
            try {
              for (long seq = 0; System.nanoTime() < until; seq++) {
                write(client, prefix + (seq % 8), seq, cas);
                writes.increment();
              }
            } catch (Throwable t) {
              failure.compareAndSet(null, t);
            }
          }));
        }
        for (Thread thread : clients) {
          thread.join();
        }
        if (failure.get() != null) {
          throw new IllegalStateException("the training's " + (cas ? "CAS" : "put") + " load failed", failure.get());
        }
        System.out.printf("aot training: %d %s writes to %s%n", writes.sum(), cas ? "CAS" : "put", address);
      }
    }
  }

  /** Writes until the store takes one: a durable node elects itself leader after it reports ready. */
  private static void awaitWritable(SetpointClient client) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try {
        write(client, "aot-probe", 0, false);
        return;
      } catch (SetpointException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no write was taken within " + TIMEOUT, e);
        }
        Thread.sleep(50);
      }
    }
  }

  /** A put of {@code key}, or a compare-and-swap on the version just read (a conflict is part of the path). */
  private static void write(SetpointClient client, String key, long seq, boolean cas) {
    Resource.Builder artist = Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, key)).setData(Any.pack(
        Artist.newBuilder().setName("Load " + key).setGenre(Genre.GENRE_DISCO).setDescription("write " + seq).build()));
    if (!cas) {
      client.write(artist.build());
      return;
    }
    String version = client.findConsistent(artist.getId()).map(Resource::getVersion).orElse("");
    try {
      client.write(artist.setVersion(version).build());
    } catch (SetpointException e) {
      if (e.code() != Status.Code.ABORTED) {
        throw e;
      }
    }
  }

  /** {@code count} distinct loopback ports, free a moment ago: all bound at once, then released for the agents. */
  private static List<Integer> freePorts(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      while (held.size() < count) {
        held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return held.stream().map(ServerSocket::getLocalPort).toList();
    } finally {
      for (ServerSocket socket : held) {
        socket.close();
      }
    }
  }

  private static void http(HttpClient http, HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      throw new IllegalStateException(request.method() + " " + request.uri() + " answered " + response.statusCode()
          + ": " + response.body());
    }
  }

  /** Runs one CLI command in this JVM, as {@code setpoint} would; throws when it fails. */
  private static void run(List<String> args, String stdin) {
    String[] argv = args.toArray(String[]::new);
    CommandLine cmd = Main.commandLine(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), argv);
    StringWriter out = new StringWriter();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(out, true));
    int code = cmd.execute(argv);
    // An agent's run ends with the interrupt that stops it.
    if (code != 0 && !(args.get(0).equals("agent") && Thread.currentThread().isInterrupted())) {
      throw new IllegalStateException("setpoint " + String.join(" ", args) + " exited " + code + ":\n" + out);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }

  /** {@code setpoint agent ...} on a thread of this JVM, stopped by an interrupt as on Ctrl-C. */
  private record RunningAgent(Thread thread, AtomicReference<RuntimeException> failed) implements AutoCloseable {
    static RunningAgent start(List<String> args) {
      AtomicReference<RuntimeException> failed = new AtomicReference<>();
      Thread thread = Thread.ofPlatform().name("aot-training-agent").start(() -> {
        try {
          run(args, "");
        } catch (RuntimeException e) {
          failed.set(e);
        }
      });
      return new RunningAgent(thread, failed);
    }

    void awaitReady(HttpClient http, String address) throws InterruptedException {
      URI readyz = URI.create("http://" + address + "/readyz");
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        if (!thread.isAlive()) {
          throw new IllegalStateException("the training agent exited before it was ready", failed.get());
        }
        try {
          if (http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.discarding())
              .statusCode() == 200) {
            return;
          }
        } catch (IOException notYet) {
          // Not listening yet.
        }
        Thread.sleep(20);
      }
      throw new IllegalStateException("the training agent at " + address + " was not ready within " + TIMEOUT);
    }

    @Override
    public void close() throws InterruptedException {
      thread.interrupt();
      thread.join(TIMEOUT);
      if (thread.isAlive()) {
        throw new IllegalStateException("the training agent did not stop within " + TIMEOUT + " of an interrupt");
      }
      if (failed.get() != null) {
        throw failed.get();
      }
    }
  }
}
