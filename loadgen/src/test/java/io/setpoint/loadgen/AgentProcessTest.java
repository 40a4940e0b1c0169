package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentProcessTest {
  @Test
  void anAgentGetsTheLaunchersHeapSizingWhichItsOwnOptionsOverride() {
    List<String> command = AgentProcess.jvm(List.of("-XX:MaxRAMPercentage=25"));

    assertThat(command).containsSubsequence(
        "-XX:MaxRAMPercentage=50", "-XX:MaxHeapFreeRatio=30", "-XX:MaxRAMPercentage=25", "-cp", AgentProcess.MAIN_CLASS);
    assertThat(command.getLast()).isEqualTo(AgentProcess.MAIN_CLASS);
  }

  @Test
  void aFounderRejoinsThroughAMemberAdvertisingTheAddressItsClusterNamedForIt() {
    List<String> founder = List.of("java", "agent", "-node", "n2", "-data-dir", "/d/n2", "-raft-port", "9002",
        "-cluster", "n1=127.0.0.1:7001,n2=127.0.0.1:7002,n3=127.0.0.1:7003", "-demo-types");

    List<String> joining = AgentProcess.joining(founder, "n2", "127.0.0.1:8001");

    assertThat(joining).containsExactly("java", "agent", "-node", "n2", "-data-dir", "/d/n2", "-raft-port", "9002",
        "-join", "127.0.0.1:8001", "-raft-advertise", "127.0.0.1:7002", "-demo-types");
    assertThat(AgentProcess.joining(joining, "n2", "127.0.0.1:8003")).containsSubsequence("-join", "127.0.0.1:8003",
        "-raft-advertise", "127.0.0.1:7002").doesNotContain("127.0.0.1:8001");
  }
}
