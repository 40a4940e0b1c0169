package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentProcessTest {
  @Test
  void anAgentGetsTheLaunchersYoungGenerationWhichItsOwnOptionsOverride() {
    List<String> command = AgentProcess.jvm(List.of("-Xmn256m"));

    assertThat(command).containsSubsequence("-Xmn64m", "-Xmn256m", "-cp", AgentProcess.MAIN_CLASS);
    assertThat(command.getLast()).isEqualTo(AgentProcess.MAIN_CLASS);
  }
}
