package io.setpoint.bench;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.cli.ElectionOptions;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.Agent;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The failover of a SINGLETON controller run in processes of its own: an agent, and {@code
 * -processes} JVMs each running {@code setpoint demo controllers} under leader election. Each
 * round kills the leader with SIGKILL, writes an Artist at once, and measures how long until the
 * new leader's controller has accepted it; then a replacement process starts.
 */
@Command(
    name = "failover",
    description = "Time from SIGKILL of the leading 'demo controllers' process until a standby has reconciled a new write.")
final class FailoverBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-processes", paramLabel = "N", defaultValue = "2",
      description = "Controller processes, the leader included (default: ${DEFAULT-VALUE}).")
  private int processes;

  @Option(names = "-rounds", paramLabel = "N", defaultValue = "5",
      description = "Leaders killed (default: ${DEFAULT-VALUE}).")
  private int rounds;

  @Mixin private ElectionOptions timing;

  private final Map<String, Process> running = new LinkedHashMap<>();
  private int started;

  @Override
  public Integer call() throws Exception {
    Bench.requirePositive(spec, "-rounds", rounds);
    if (processes < 2) {
      throw new ParameterException(spec.commandLine(), "-processes must be at least 2, was " + processes);
    }
    PrintWriter out = spec.commandLine().getOut();
    Duration wait = timing.leaseDuration().multipliedBy(4).plusSeconds(60);
    List<Double> failovers = new ArrayList<>();
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      String address = "127.0.0.1:" + agent.port();
      for (int i = 0; i < processes; i++) {
        start(address);
      }
      awaitAccepted(client, write(client, "warmup"), wait);
      for (int round = 1; round <= rounds; round++) {
        String leader = holder(client);
        Process killed = running.remove(leader);
        if (killed == null) {
          throw new IllegalStateException("the lease is held by " + leader + ", which this benchmark did not start");
        }
        killed.destroyForcibly();
        long t0 = System.nanoTime();
        killed.waitFor(10, TimeUnit.SECONDS);
        awaitAccepted(client, write(client, "round-" + round), wait);
        failovers.add((System.nanoTime() - t0) / 1e9);
        if (round < rounds) {
          start(address); // the next round kills a leader that took over, with a standby ready
        }
      }
    } finally {
      running.values().forEach(Process::destroyForcibly);
    }
    List<Double> sorted = failovers.stream().sorted().toList();
    out.println(Bench.machine());
    out.printf(Locale.ROOT, "%d controller processes, %s, %d leaders killed%n", processes, timing.describe(), rounds);
    out.printf(Locale.ROOT, "kill -9 of the leader to a new write reconciled: median %.2f s, max %.2f s, min %.2f s%n",
        sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.get(0));
    out.println("(a standby takes over once the lease has gone unrenewed for the lease duration, at its next look)");
    out.flush();
    return 0;
  }

  private void start(String address) throws IOException {
    String holder = "bench-" + (++started);
    List<String> args = new ArrayList<>(List.of("demo", "controllers", "-address", address, "-holder", holder));
    args.addAll(timing.args());
    running.put(holder, new ProcessBuilder(Bench.cliCommand(args))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start());
  }

  private static ID write(SetpointClient client, String name) {
    return client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build()).getId();
  }

  private static void awaitAccepted(SetpointClient client, ID id, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Status status = client.read(id).getStatusMap().get(ArtistController.STATUS_KEY);
      if (status != null && Conditions.holds(status, "Accepted")) {
        return;
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(Ids.format(id) + " was not accepted within " + timeout);
  }

  private static String holder(SetpointClient client) throws InvalidProtocolBufferException {
    try {
      return client.readConsistent(Ids.of(Types.LEASE, "demo-controllers")).getData().unpack(Lease.class).getHolder();
    } catch (SetpointException e) {
      throw new IllegalStateException("no controller process holds the lease demo-controllers: " + e.getMessage(), e);
    }
  }
}
