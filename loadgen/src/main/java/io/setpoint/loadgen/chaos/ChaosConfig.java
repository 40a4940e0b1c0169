package io.setpoint.loadgen.chaos;

import java.time.Duration;
import java.util.List;

/**
 * What a fault-suite run does.
 *
 * @param members durable members, each a separate process
 * @param clients concurrent clients; each sends every operation to a member picked at random
 * @param sharedKeys keys every client writes
 * @param ownKeys keys of its own per client
 * @param faults the phases, in order; each runs {@code calm}, then its fault for {@code window},
 *     then heals and runs {@code heal} more
 * @param duration after every phase ran once, phases go on, in the same order, until this much
 *     time has passed since the first began; zero: each once
 * @param warmup how long the clients run before the first phase: their operations are checked for
 *     safety like any other, but belong to no phase, so liveness does not time the JVMs' start
 * @param calm how long a phase runs before its fault
 * @param window how long a fault lasts (a rolling restart lasts as long as its restarts take)
 * @param heal how long a phase runs after its fault healed
 * @param maxOpsPerClient a client stops after this many operations even if time is left
 * @param deadline each client call's deadline
 * @param startTimeout how long a member may take to become ready
 * @param seed of the clients' and faults' random choices
 * @param agentArgs appended to every member's arguments
 * @param agentJvmOptions appended to every member's JVM options
 */
public record ChaosConfig(int members, int clients, int sharedKeys, int ownKeys, List<Fault> faults,
    Duration duration, Duration warmup, Duration calm, Duration window, Duration heal, long maxOpsPerClient, Duration deadline,
    Duration startTimeout, long seed, List<String> agentArgs, List<String> agentJvmOptions) {
  /** What a fault must heal within, and what a calm request must be answered within. */
  public static final Duration FLOWING_AFTER_HEAL = Duration.ofSeconds(5);
  /** How long a request outside fault windows may take. */
  public static final Duration CALM_ANSWER = Duration.ofSeconds(1);

  /** Checks the values. */
  public ChaosConfig {
    if (members < 1 || clients < 1 || sharedKeys < 1 || ownKeys < 0 || maxOpsPerClient < 1) {
      throw new IllegalArgumentException("members, clients, shared keys and operations must be positive, own keys not negative");
    }
    if (warmup.isNegative()) {
      throw new IllegalArgumentException("-warmup must not be negative, was " + warmup);
    }
    if (faults.isEmpty()) {
      throw new IllegalArgumentException("no phases to run");
    }
    if (members < 2 && faults.stream().anyMatch(f -> f == Fault.KILL_FOLLOWER || f.partitions())) {
      throw new IllegalArgumentException("one member has no follower to kill and nobody to be cut off from");
    }
    if (members < 2 && faults.contains(Fault.REPLACE_MEMBER)) {
      throw new IllegalArgumentException("one member cannot be removed: the last member of a cluster stays");
    }
    faults = List.copyOf(faults);
    agentArgs = List.copyOf(agentArgs);
    agentJvmOptions = List.copyOf(agentJvmOptions);
  }
}
