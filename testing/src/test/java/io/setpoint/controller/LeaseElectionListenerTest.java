package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.testing.SetpointExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@link LeaseElection} whose leadership listener throws: the election's own thread calls the
 * listeners as it takes the lease and as it steps down, so a throw that escaped there would end the
 * campaign for good. In this package to build the election without a manager and listen to it.
 */
class LeaseElectionListenerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration RETRY = Duration.ofSeconds(2);
  private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().build();

  private final ManualTicker ticker = new ManualTicker();
  private final Faults faults = new Faults(new SimpleMeterRegistry(), Clock.systemUTC());
  private LeaseElection election;

  @AfterEach
  void closeElection() {
    if (election != null) {
      election.close();
    }
  }

  @Test
  void aListenerThatThrowsWhenTheLeaderStepsDownAtTheRenewDeadlineIsAFaultAndTheElectionCampaignsOn() {
    election = LeaseElection.named("listened").holder("only")
        .leaseDuration(Duration.ofSeconds(15)).renewDeadline(RENEW_DEADLINE).retryPeriod(RETRY)
        .build(setpoint.client(), ticker, Clock.systemUTC(), faults);
    AtomicInteger stepDowns = new AtomicInteger();
    election.onChange(() -> {
      if (!election.isLeader()) {
        stepDowns.incrementAndGet();
        throw new AssertionError("a bug in what stepping down stops");
      }
    });
    election.start();
    await().atMost(WAIT).until(election::isLeader);

    // A jump of a whole renew deadline: the renew sent after it is late already, so the leader
    // steps down without a renew, and its listener throws.
    await().atMost(WAIT).until(() -> {
      ticker.advance(RENEW_DEADLINE);
      return stepDowns.get() > 0;
    });
    await().atMost(WAIT).untilAsserted(() -> assertThat(faults.last("listened")).hasValueSatisfying(fault ->
        assertThat(fault).contains("election failed (a leadership listener, as only steps down)", "a bug in what")));

    // Nobody took the lease since: the next campaign takes it back.
    await().atMost(WAIT).until(() -> {
      ticker.advance(RETRY);
      return election.isLeader();
    });
    assertThat(faults.count("listened")).isEqualTo(stepDowns.get());
  }
}
