package io.setpoint.bench;

import io.setpoint.cli.DurationConverter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Issue 47: how Setpoint's cost grows with its data, against etcd in the same run. For each size,
 * each system in turn gets a fresh server on an empty data directory, loaded with that many
 * resources over HTTP by the same client ({@link ScaleLoad}), then measured the same way ({@link
 * ScaleRun}): load rate, resident memory, Setpoint's live heap, data directory, backup, paged
 * list, watch snapshot (Setpoint) and restart. {@link ScaleReport} prints the totals with the cost
 * per resource at every size, and Setpoint's over etcd's.
 */
@Command(
    name = "scale",
    description = {
      "How Setpoint's cost grows with its data, against etcd in the same run (issue 47): for each size, a fresh",
      "durable agent and a fresh etcd, one after the other, each loaded with that many resources over HTTP, then",
      "measured: load rate, RSS, live heap, data dir, backup, paged list, watch snapshot and restart.",
      "etcd runs only if installed (Debian's etcd-server: /usr/bin/etcd); otherwise Setpoint is reported alone."
    })
final class ScaleBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-sizes", paramLabel = "N", split = ",", defaultValue = "10k,100k,1m", converter = ScaleSize.class,
      description = "Numbers of resources, each on fresh servers; k = 1,000, m = 1,000,000 (default: ${DEFAULT-VALUE}).")
  private List<Integer> sizes;

  @Option(names = "-in-flight", paramLabel = "N", defaultValue = "64",
      description = "Writes in flight during the load, each sent as soon as another is answered (default: ${DEFAULT-VALUE}).")
  private int inFlight;

  @Option(names = "-value-bytes", paramLabel = "B", defaultValue = "200",
      description = "Bytes of each resource's JSON document, Setpoint's PUT body and etcd's value (default: ${DEFAULT-VALUE}).")
  private int valueBytes;

  @Option(names = "-timeout", paramLabel = "TIME", defaultValue = "30m", converter = DurationConverter.class,
      description = "How long each step may take: a start or restart to ready, the load, a backup, the list, the watch "
          + "snapshot, a stop before it is killed (default: ${DEFAULT-VALUE}).")
  private Duration timeout;

  @Mixin private EtcdOptions etcd;

  @Option(names = "-etcdctl", paramLabel = "PATH", defaultValue = "/usr/bin/etcdctl",
      description = "etcdctl, which backs etcd up (Debian: etcd-client); without it etcd's backup is not measured "
          + "(default: ${DEFAULT-VALUE}).")
  private Path etcdctl;

  @Override
  public Integer call() throws InterruptedException {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    out.println(Bench.machine());
    out.printf(Locale.ROOT, "load average at start: %s%n", Bench.loadAverage());
    out.printf(Locale.ROOT, "sizes %s; %d writes in flight over HTTP/1.1, %d B JSON documents; pages of %,d; each size on "
            + "fresh servers%n",
        String.join(", ", sizes.stream().map(ScaleSize::label).toList()), inFlight, valueBytes, ScaleSystem.PAGE);
    out.println("setpoint: one durable agent (agent -data-dir), the launcher's JVM flags and its default heap; "
        + "live heap from /metrics (jvm_memory_used_bytes, heap) right after jcmd GC.run");
    out.println(Bench.agentAotCache());
    etcd.reportMissing(out);
    List<ScaleSystem> systems = new ArrayList<>(List.of(new ScaleSetpoint()));
    if (etcd.runs()) {
      boolean backups = Files.isExecutable(etcdctl);
      if (!backups) {
        out.println("etcdctl is not installed at " + etcdctl + " (Debian: apt-get install etcd-client); "
            + "etcd's backup is not measured.");
      }
      systems.add(new ScaleEtcd(etcd.binary, etcd.label(), backups ? etcdctl : null));
    }
    out.flush();

    List<List<ScaleResult>> results = new ArrayList<>();
    boolean failed = false;
    for (ScaleSystem system : systems) {
      results.add(new ArrayList<>());
    }
    for (int size : sizes) {
      for (int s = 0; s < systems.size(); s++) {
        ScaleSystem system = systems.get(s);
        try {
          results.get(s).add(new ScaleRun(system, inFlight, valueBytes, timeout, out).measure(size));
        } catch (IOException | RuntimeException e) {
          out.printf(Locale.ROOT, "%s, %s resources: failed: %s%n", system.label(), ScaleSize.label(size), e.getMessage());
          out.flush();
          failed = true;
        }
      }
    }

    for (int s = 0; s < systems.size(); s++) {
      if (!results.get(s).isEmpty()) {
        ScaleReport.printSystem(out, systems.get(s).label(), results.get(s));
      }
    }
    if (systems.size() > 1) {
      ScaleReport.printComparison(out, results.get(0), results.get(1));
    }
    out.println();
    out.println("per resource: memory and disk are what the data added to the empty server, divided by the resources;"
        + " times are the whole time divided by them");
    out.printf(Locale.ROOT, "load average at end: %s%n", Bench.loadAverage());
    out.flush();
    return failed ? 1 : 0;
  }

  private void validate() {
    Bench.requirePositive(spec, "-in-flight", inFlight);
    if (valueBytes < ScaleLoad.MIN_BYTES) {
      throw new ParameterException(spec.commandLine(),
          "-value-bytes must be at least " + ScaleLoad.MIN_BYTES + " (a document with an empty description), was " + valueBytes);
    }
    if (timeout.isZero()) {
      throw new ParameterException(spec.commandLine(), "-timeout must be positive, was " + Bench.seconds(timeout));
    }
  }
}
