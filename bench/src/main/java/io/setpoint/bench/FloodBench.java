package io.setpoint.bench;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.CreateTokenResponse;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.cli.DurationConverter;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.LocalCluster;
import io.setpoint.loadgen.SetpointTarget;
import io.setpoint.server.AclTypes;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Issue 19: the per-client limits under load. Against an agent with ACLs and {@code
 * -client-rate-limit} (started here, or given with {@code -address}), token B reads one Artist over
 * HTTP/JSON at a steady rate under its limit, first alone ("idle") and then while token A floods the
 * same route with concurrent requests far over its limit ("flood"); B's latency is compared, and
 * A's answers are counted (429 with {@code Retry-After}, or served). Then watches that read nothing
 * are held open while large Artists are written, to see whether the agent cuts them off and what
 * its heap does meanwhile.
 *
 * <p>A's flood runs in a process of its own ({@link FloodProcess}); on Linux with {@code taskset}
 * it gets the last CPU to itself and the agent started here and this JVM (B's reader) the others,
 * in both phases ({@link CpuPinning}). A flood comes from other hosts, with CPUs of their own: with
 * the flooding client on the reader's and the agent's cores, the figure measured how two clients
 * share a small machine rather than how the agent protects B.
 */
@Command(
    name = "flood",
    description = {
      "Rate limits under a flood (issue 19): one token's reads, idle and while another token floods;",
      "429s and Retry-After of the flood; watches that never read under large writes, and the agent's heap."
    })
final class FloodBench implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(FloodBench.class);
  private static final String TARGET = "flood-target";
  private static final String POLICY = "bench-flood";
  /** Large Artists are written under this many names in turn, so the store holds few of them. */
  private static final int PAYLOAD_NAMES = 8;
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(250);
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

  @Spec private CommandSpec spec;

  @Option(names = "-address", paramLabel = "HOST:PORT",
      description = "An agent already running, with ACLs on and -client-rate-limit; give that limit as -rate-limit "
          + "(default: start one here, with -rate-limit).")
  private String address;

  @Option(names = "-token", paramLabel = "TOKEN", defaultValue = "",
      description = "A management token of the agent, instead of bootstrapping one (default: none).")
  private String token;

  @Option(names = "-rate-limit", paramLabel = "N", defaultValue = "100",
      description = "Requests per second per client: the agent's -client-rate-limit (default: ${DEFAULT-VALUE}).")
  private int rateLimit;

  @Option(names = "-rate-burst", paramLabel = "N", defaultValue = "0",
      description = "The agent's -client-rate-burst (default: -rate-limit).")
  private int rateBurst;

  @Option(names = "-read-rate", paramLabel = "N", defaultValue = "0",
      description = "Token B's reads per second, one at a time; also the rate of the large writes (default: half of -rate-limit).")
  private int readRate;

  @Option(names = "-flood-clients", paramLabel = "N", defaultValue = "64",
      description = "Token A's concurrent requests, each sent again as soon as it is answered (default: ${DEFAULT-VALUE}).")
  private int floodClients;

  @Option(names = "-duration", paramLabel = "TIME", defaultValue = "15s", converter = DurationConverter.class,
      description = "Length of each phase: idle, flood, stuck watchers (default: ${DEFAULT-VALUE}).")
  private Duration duration;

  @Option(names = "-warmup", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "Reads and flood before measuring, so both paths are compiled (default: ${DEFAULT-VALUE}).")
  private Duration warmup;

  @Option(names = "-watchers", paramLabel = "N", defaultValue = "2",
      description = "Watches that never read: gRPC and HTTP in turn (default: ${DEFAULT-VALUE}).")
  private int watchers;

  @Option(names = "-payload-kib", paramLabel = "KIB", defaultValue = "256",
      description = "Size of each Artist written while the watchers do not read (default: ${DEFAULT-VALUE}).")
  private int payloadKib;

  @Option(names = "-setpoint-mode", paramLabel = "MODE", defaultValue = "dev",
      description = "The agent started here: dev ('agent -dev -acls', in memory) or durable (-data-dir) "
          + "(default: ${DEFAULT-VALUE}).")
  private AgentProcess.Mode setpointMode;

  @Option(names = "-agent-port", paramLabel = "PORT", defaultValue = "0",
      description = "Port of the agent started here (default: a free port).")
  private int agentPort;

  @Option(names = "-agent-arg", paramLabel = "ARG", preprocessor = AgentArgument.class,
      description = "Extra argument for the agent started here (repeatable), appended to the ones the benchmark passes.")
  private List<String> agentArgs = new ArrayList<>();

  @Option(names = "-agent-jvm-option", paramLabel = "OPT", defaultValue = "-Xmx512m",
      description = "JVM option for the agent started here (repeatable; default: ${DEFAULT-VALUE}, so its watch "
          + "buffers and heap are those of a small agent).")
  private List<String> agentJvmOptions;

  @Option(names = "-no-pin-cpus",
      description = "Leave every process free to run on every CPU. By default (Linux, taskset on the PATH) token A's "
          + "flood gets the last CPU and the agent started here and this JVM (B's reader) the others, as a flood from "
          + "another host has CPUs of its own; with -address only the flood is pinned.")
  private boolean noPinCpus;

  @Option(names = "-start-timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
      description = "How long the agent may take to become ready (default: ${DEFAULT-VALUE}).")
  private Duration startTimeout;

  /** The agent started here, whose heap is collected before it is read; null for one given with -address. */
  private Long agentPid;

  /** Which CPUs each process got, as printed: "agent 0, this JVM (B's reader) 0, token A's flood 1". */
  private String cpus;

  /** The CPUs this JVM could use at the start, before it may be pinned to fewer. */
  private int machineCpus;

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    out.println(Bench.machine());
    out.printf(Locale.ROOT, "load average at start: %s%n", Bench.loadAverage());
    out.flush();
    machineCpus = Runtime.getRuntime().availableProcessors();
    CpuPinning pinning = noPinCpus ? CpuPinning.none("-no-pin-cpus") : CpuPinning.plan();
    if (address != null) {
      cpus = pinning.pinned()
          ? "token A's flood " + pinning.floodCpus() + "; the agent at " + address + " and this JVM (B's reader) not pinned"
          : "not pinned (" + pinning.whyNot() + ")";
      report().print(out, run(out, address, pinning), "the agent at " + address);
      return 0;
    }
    List<String> args = new ArrayList<>(List.of("-client-rate-limit", Integer.toString(rateLimit),
        "-client-rate-burst", Integer.toString(burst())));
    args.addAll(agentArgs);
    try (LocalCluster cluster = AgentProcess.start(
        new AgentProcess.Config(setpointMode, 1, agentPort, true, args, agentJvmOptions, startTimeout))) {
      String started = cluster.endpoints().get(0);
      agentPid = cluster.pids().get(0);
      // Pinned once started, so that its JVM sizes itself (collector, thread pools) for the
      // machine, as it does unpinned; the threads it starts later inherit the pinning.
      if (pinning.pinned()) {
        pinning.pinShared(agentPid);
      }
      cpus = pinning.pinned()
          ? "agent " + pinning.sharedCpus() + ", this JVM (B's reader) " + pinning.sharedCpus() + ", token A's flood "
              + pinning.floodCpus()
          : "not pinned (" + pinning.whyNot() + ")";
      try (AutoCloseable self = pinning.pinned() ? pinning.pinThisJvm() : () -> {}) {
        report().print(out, run(out, started, pinning), "setpoint agent " + setpointMode.name().toLowerCase(Locale.ROOT)
            + " " + String.join(" ", args) + ", JVM " + String.join(" ", agentJvmOptions));
      }
    }
    return 0;
  }

  private void validate() {
    Bench.requirePositive(spec, "-rate-limit", rateLimit);
    Bench.requireNotNegative(spec, "-rate-burst", rateBurst);
    Bench.requireNotNegative(spec, "-read-rate", readRate);
    Bench.requirePositive(spec, "-flood-clients", floodClients);
    Bench.requirePositive(spec, "-watchers", watchers);
    Bench.requirePositive(spec, "-payload-kib", payloadKib);
    if (duration.isZero() || duration.isNegative()) {
      throw new ParameterException(spec.commandLine(), "-duration must be positive, was " + duration);
    }
    if (warmup.isNegative()) {
      throw new ParameterException(spec.commandLine(), "-warmup must not be negative, was " + warmup);
    }
    if (readRate() > rateLimit) {
      throw new ParameterException(spec.commandLine(),
          "-read-rate " + readRate + " is over -rate-limit " + rateLimit + ": token B would be refused too");
    }
  }

  private int burst() {
    return rateBurst > 0 ? rateBurst : rateLimit;
  }

  private double readRate() {
    return readRate > 0 ? readRate : rateLimit / 2.0;
  }

  private FloodReport.Outcome run(PrintWriter out, String agent, CpuPinning pinning) throws Exception {
    String secret = token.isEmpty() ? SetpointTarget.bootstrapToken(agent, startTimeout) : token;
    List<ID> created = new ArrayList<>();
    try (SetpointClient admin = SetpointClient.builder().address(agent).token(secret)
            .deadline(Duration.ofSeconds(30)).build();
        HttpClient reader = FloodHttp.client();
        HttpClient scraper = FloodHttp.client()) {
      created.add(admin.write(Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, POLICY))
          .setData(Any.pack(Policy.newBuilder().setDescription("bench flood: read and list Artists")
              .addRules(Rule.newBuilder().setType("demo.v2.Artist").addPermissions("read").addPermissions("list")).build()))
          .build()).getId());
      String a = createToken(admin, "A, floods", created);
      String b = createToken(admin, "B, reads", created);
      String c = createToken(admin, "C, watches without reading", created);
      created.add(admin.write(artist(TARGET, "The Artist every read asks for")).getId());

      URI target = URI.create("http://" + agent + "/api/demo/v2/Artist/" + TARGET);
      HttpRequest readB = FloodHttp.get(target, b);
      out.printf(Locale.ROOT, "tokens A (flood), B (reads), C (watches); B reads GET %s at %.0f/s, one at a time; "
          + "A sends %d at once from a process of its own; %s per phase after %s of warm-up%n",
          target.getPath(), readRate(), floodClients, Bench.seconds(duration), Bench.seconds(warmup));
      out.println("CPUs: " + cpus);
      out.flush();
      FloodHttp.Reads idle;
      PhaseCpu idleCpu;
      FloodHttp.Reads flooded;
      FloodHttp.Flooded floodResult;
      PhaseCpu floodCpu;
      try (FloodProcess flood = FloodProcess.start(pinning, target, a, floodClients)) {
        if (!warmup.isZero()) {
          flood.flood();
          FloodHttp.read(reader, readB, readRate(), warmup);
          flood.stop();
        }
        PhaseCpu start = PhaseCpu.now(agentPid, flood.pid());
        idle = FloodHttp.read(reader, readB, readRate(), duration);
        idleCpu = PhaseCpu.now(agentPid, flood.pid()).since(start);
        out.println("idle:  B " + FloodReport.summary(idle));
        out.flush();
        start = PhaseCpu.now(agentPid, flood.pid());
        flood.flood();
        flooded = FloodHttp.read(reader, readB, readRate(), duration);
        floodResult = flood.stop();
        floodCpu = PhaseCpu.now(agentPid, flood.pid()).since(start);
      }
      out.println("flood: B " + FloodReport.summary(flooded));
      out.flush();
      FloodReport.Watchers stuck = stuckWatchers(out, admin, scraper, agent, secret, c, created);
      return new FloodReport.Outcome(idle, idleCpu, flooded, floodCpu, floodResult, stuck);
    } finally {
      deleteQuietly(agent, secret, created);
    }
  }

  private static String createToken(SetpointClient admin, String what, List<ID> created) {
    CreateTokenResponse response = admin.createToken(CreateTokenRequest.newBuilder()
        .addPolicies(POLICY).setDescription("bench flood: token " + what).build());
    created.add(response.getToken().getId());
    return response.getSecret();
  }

  /**
   * Opens the watchers, writes large Artists at the read rate with the management token while
   * sampling the agent's heap and open watches, then reads each watch to its end.
   */
  private FloodReport.Watchers stuckWatchers(PrintWriter out, SetpointClient admin, HttpClient scraper, String agent,
      String secret, String watcherSecret, List<ID> created) throws Exception {
    AgentGauges before = collected(scraper, agent, secret);
    String filler = "x".repeat(payloadKib << 10);
    for (int i = 0; i < PAYLOAD_NAMES; i++) {
      created.add(Ids.of(DemoTypes.ARTIST, payloadName(i)));
    }
    try (StuckWatchers stuck = StuckWatchers.open(agent, watcherSecret, watchers)) {
      long deadline = System.nanoTime() + startTimeout.toNanos();
      while (AgentGauges.read(scraper, agent, secret).watchesOpen() < before.watchesOpen() + watchers) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the agent did not report the " + watchers + " watches open within " + startTimeout);
        }
        Thread.sleep(SAMPLE_EVERY.toMillis());
      }
      LongAdder written = new LongAdder();
      LongAdder failed = new LongAdder();
      AtomicBoolean writing = new AtomicBoolean(true);
      long t0 = System.nanoTime();
      Thread writer = Thread.ofPlatform().name("bench-flood-writer").start(() ->
          writeLarge(admin, filler, writing, written, failed));
      long stop = t0 + duration.toNanos();
      long peak = before.heapUsed();
      Duration cutOff = null;
      while (System.nanoTime() < stop) {
        Thread.sleep(SAMPLE_EVERY.toMillis());
        AgentGauges now = AgentGauges.read(scraper, agent, secret);
        peak = Math.max(peak, now.heapUsed());
        if (cutOff == null && now.watchesOpen() <= before.watchesOpen()) {
          cutOff = Duration.ofNanos(System.nanoTime() - t0);
        }
      }
      writing.set(false);
      writer.join();
      Duration watched = Duration.ofNanos(System.nanoTime() - t0);
      AgentGauges end = collected(scraper, agent, secret);
      int stillOpen = Math.max(0, end.watchesOpen() - before.watchesOpen());
      out.printf(Locale.ROOT, "stuck watchers: %d written of %d KiB, %s; %d of %d watches still open%n",
          written.sum(), payloadKib, Bench.seconds(watched), stillOpen, watchers);
      out.flush();
      List<String> seen = stuck.drain(DRAIN_TIMEOUT);
      stuck.close();
      deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
      while (AgentGauges.read(scraper, agent, secret).watchesOpen() > before.watchesOpen()
          && System.nanoTime() < deadline) {
        Thread.sleep(SAMPLE_EVERY.toMillis());
      }
      AgentGauges after = collected(scraper, agent, secret);
      return new FloodReport.Watchers(watchers, written.sum(), failed.sum(), cutOff, stillOpen, watched, before, peak, end,
          after, seen);
    }
  }

  /**
   * The agent's gauges; for an agent started here, right after a full collection (through {@code
   * jcmd GC.run}), so the heap read is what it holds live rather than where its collector happens to be.
   */
  private AgentGauges collected(HttpClient scraper, String agent, String secret) throws IOException, InterruptedException {
    return agentPid == null ? AgentGauges.read(scraper, agent, secret)
        : AgentGauges.afterFullGc(scraper, agent, secret, agentPid);
  }

  /** Writes the large Artists at the read rate until {@code writing} turns false. */
  private void writeLarge(SetpointClient admin, String filler, AtomicBoolean writing, LongAdder written,
      LongAdder failed) {
    long interval = (long) (1e9 / readRate());
    long next = System.nanoTime();
    for (int i = 0; writing.get(); i++) {
      try {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(Duration.ofNanos(wait));
        }
        next += interval;
        admin.write(artist(payloadName(i % PAYLOAD_NAMES), i + filler));
        written.increment();
      } catch (SetpointException e) {
        failed.increment();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static String payloadName(int i) {
    return "flood-payload-" + i;
  }

  private static Resource artist(String name, String description) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).setDescription(description).build())).build();
  }

  /**
   * Deletes what the benchmark created (tokens, policy, Artists), so that a run against an agent
   * given with -address leaves no token behind; deleting what is gone succeeds.
   */
  private static void deleteQuietly(String agent, String secret, List<ID> created) {
    try (SetpointClient admin = SetpointClient.builder().address(agent).token(secret)
        .deadline(Duration.ofSeconds(10)).build()) {
      for (ID id : created.reversed()) {
        try {
          admin.delete(id);
        } catch (SetpointException e) {
          // Best effort: the numbers are measured already, and a leftover is named in the error.
          log.warn("bench flood: could not delete {}: {}", Ids.format(id), e.getMessage());
        }
      }
    }
  }

  private FloodReport report() {
    return new FloodReport(cpus, machineCpus, duration, floodClients, payloadKib, agentPid != null, SAMPLE_EVERY);
  }
}
