package io.setpoint.bench;

import picocli.CommandLine.Command;

/**
 * {@code setpoint bench}: system benchmarks that start real agents and controllers in this process
 * (or, for {@code writes}, agents and etcd servers as separate processes) and print what they
 * measured. Micro-benchmarks of single components are JMH benchmarks in the {@code bench} module
 * instead; docs/benchmarks.md has the commands and the published numbers.
 */
@Command(
    name = "bench",
    description = {
      "Runs a system benchmark in this process and prints its results.",
      "Give the JVM the machine to itself: results on a busy machine mean little."
    },
    subcommands = {
      ReconcileLatencyBench.class, ColdStartBench.class, CacheMemoryBench.class, WritesBench.class, TypesBench.class,
      FailoverBench.class, ShardsBench.class, ShardMemberCommand.class, FloodBench.class, FloodClientCommand.class, StartupBench.class,
      ChaosBench.class, ScaleBench.class
    })
public final class BenchCommand {}
