package io.setpoint.cli;

import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Sharding;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The timing of a leader election or a shard group ({@code -lease-duration}, {@code
 * -renew-deadline}, {@code -retry-period}), shared by the commands that run controllers under one.
 */
public final class ElectionOptions {
  @Option(names = "-lease-duration", paramLabel = "TIME", defaultValue = "15s", converter = DurationConverter.class,
      description = "How long a lease goes unrenewed before a standby takes over (default: ${DEFAULT-VALUE}).")
  private Duration leaseDuration;

  @Option(names = "-renew-deadline", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "How long the leader leads without renewing before it steps down; less than -lease-duration"
          + " (default: ${DEFAULT-VALUE}).")
  private Duration renewDeadline;

  @Option(names = "-retry-period", paramLabel = "TIME", defaultValue = "2s", converter = DurationConverter.class,
      description = "How often the leader renews and standbys look at the lease; less than -renew-deadline"
          + " (default: ${DEFAULT-VALUE}).")
  private Duration retryPeriod;

  /** {@code election} with these timings. */
  public LeaseElection.Builder applyTo(LeaseElection.Builder election) {
    return election.leaseDuration(leaseDuration).renewDeadline(renewDeadline).retryPeriod(retryPeriod);
  }

  /** {@code group} with these timings. */
  public Sharding.Builder applyTo(Sharding.Builder group) {
    return group.leaseDuration(leaseDuration).renewDeadline(renewDeadline).retryPeriod(retryPeriod);
  }

  /** These options as command-line arguments, for a process started with the same timing. */
  public List<String> args() {
    return List.of("-lease-duration", leaseDuration.toMillis() + "ms", "-renew-deadline", renewDeadline.toMillis() + "ms",
        "-retry-period", retryPeriod.toMillis() + "ms");
  }

  /** How the timing reads in a report, e.g. {@code lease 15.0 s, renew deadline 10.0 s, retry period 2.0 s}. */
  public String describe() {
    return "lease " + seconds(leaseDuration) + ", renew deadline " + seconds(renewDeadline) + ", retry period "
        + seconds(retryPeriod);
  }

  /** The lease duration. */
  public Duration leaseDuration() {
    return leaseDuration;
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
