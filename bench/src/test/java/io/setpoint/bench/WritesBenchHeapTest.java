package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The agents' heap in {@code bench writes}: fixed unless asked otherwise, and overridable. */
class WritesBenchHeapTest {

  @Test
  void agentsGetAFixedHeapByDefault() {
    assertThat(WritesBench.agentJvmOptions(WritesBench.DEFAULT_AGENT_HEAP, List.of()))
        .containsExactly("-Xms1g", "-Xmx1g");
  }

  @Test
  void extraOptionsComeAfterTheHeapSoThatTheirsWins() {
    assertThat(WritesBench.agentJvmOptions("512m", List.of("-Xmx2g", "-XX:+UseZGC")))
        .containsExactly("-Xms512m", "-Xmx512m", "-Xmx2g", "-XX:+UseZGC");
  }

  @Test
  void jvmLeavesTheHeapToTheJvm() {
    assertThat(WritesBench.agentJvmOptions(WritesBench.JVM_HEAP, List.of("-Xlog:gc"))).containsExactly("-Xlog:gc");
  }
}
