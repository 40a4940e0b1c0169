package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.cli.CliRun;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code setpoint bench chaos} at a tiny size: one durable member as a separate process, two
 * clients, a calm phase and a kill -9 of the leader. Asserts the shape of the report and that every
 * check ran, not that the store passed them: the suite's verdicts are its own output.
 */
@Timeout(180)
class ChaosBenchTest {
  private static final List<String> CHECKS = List.of("linearizable", "watch-ordered", "watch-unique", "watch-atomic",
      "watch-reliable", "watch-resumable", "convergence", "liveness-calm", "liveness-heal");

  @Test
  void runsThePhasesAndReportsEveryCheckAndATally() {
    CliRun run = CliRun.run("bench", "chaos", "-members", "1", "-clients", "2", "-shared-keys", "2", "-own-keys", "1",
        "-faults", "none,kill-leader", "-warmup", "300ms", "-calm", "300ms", "-window", "300ms", "-heal", "1s", "-seed", "7");

    assertThat(run.out()).as(run.toString())
        .contains("seed 7, phases: none, kill-leader\n")
        .contains("starting 1 durable members")
        .contains("clients warming up for 0.3 s before the first phase\n")
        .containsPattern("phase 1 no fault: [0-9.]+ s \\(fault [0-9.]+ s\\), [0-9,]+ operations, [0-9,]+ answered \\([0-9.]+/s\\), p99 ")
        .containsPattern("phase 2 kill -9 of the leader \\(n1\\): .*flowing after the heal: n1 ")
        .containsPattern("clients stopped after [0-9,]+ operations")
        .containsPattern("done \\(OK\\) of sent, by kind: strong read [0-9,]+/[0-9,]+, read [0-9,]+/[0-9,]+, put ");
    for (String check : CHECKS) {
      assertThat(run.out()).containsPattern("(?m)^(passed|FAILED) " + check + ": ");
    }
    Matcher tally = Pattern.compile("(?m)^([0-9]+) passed, ([0-9]+) failed\n\\z").matcher(run.out());
    assertThat(tally.find()).as(run.out()).isTrue();
    int passed = Integer.parseInt(tally.group(1));
    int failed = Integer.parseInt(tally.group(2));
    assertThat(passed + failed).isEqualTo(CHECKS.size());
    assertThat(run.code()).isEqualTo(failed == 0 ? 0 : 1);
  }

  @Test
  void givesEveryMemberTheJvmOptions() {
    // A Raft customization no agent knows: the member refuses to start, and says why.
    CliRun run = CliRun.run("bench", "chaos", "-members", "1", "-clients", "1", "-faults", "none",
        "-agent-jvm-option", "-Dsetpoint.raft.off=warp-drive", "-seed", "7");

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.out())
        .contains("member JVM options added: -Dsetpoint.raft.off=warp-drive\n")
        .contains("could not run: ")
        .contains("setpoint.raft.off: unknown Raft customization 'warp-drive'; known: commit-propagation");
  }

  @Test
  void anUnknownFaultIsAUsageError() {
    CliRun run = CliRun.run("bench", "chaos", "-faults", "none,flood");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-faults: unknown fault 'flood', expected one of none, kill-follower, kill-leader");
  }

  @Test
  void oneMemberHasNoFollowerToKill() {
    CliRun run = CliRun.run("bench", "chaos", "-members", "1", "-faults", "kill-follower");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("one member has no follower to kill and nobody to be cut off from");
  }

  @Test
  void oneMemberCannotBeRemovedAndAddedBack() {
    CliRun run = CliRun.run("bench", "chaos", "-members", "1", "-faults", "replace-member");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("one member cannot be removed: the last member of a cluster stays");
  }
}
