package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The default connection limits, derived from the file-descriptor limit. */
class ConnectionLimitsDefaultsTest {
  @Test
  void connectionsLeaveAFifthOfTheDescriptorsAndAtLeast256ForTheStore() {
    assertThat(ConnectionLimits.forDescriptorLimit(1_024)).isEqualTo(new ConnectionLimits(768, 512));
    assertThat(ConnectionLimits.forDescriptorLimit(20_000)).isEqualTo(new ConnectionLimits(16_000, 512));
    assertThat(ConnectionLimits.forDescriptorLimit(1_048_576)).isEqualTo(new ConnectionLimits(838_861, 512));
  }

  @Test
  void aTinyLimitKeepsHalfForConnectionsAndCapsOneClientAtTheTotal() {
    assertThat(ConnectionLimits.forDescriptorLimit(256)).isEqualTo(new ConnectionLimits(128, 128));
    assertThat(ConnectionLimits.forDescriptorLimit(1)).isEqualTo(new ConnectionLimits(1, 1));
  }

  @Test
  void anUnlimitedProcessGetsTheLargestIntRatherThanAnOverflow() {
    assertThat(ConnectionLimits.forDescriptorLimit(Long.MAX_VALUE).total()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void givenLimitsWinAndADefaultPerClientCapStaysWithinAGivenTotal() {
    assertThat(ConnectionLimits.of(20, 5, 1_024)).isEqualTo(new ConnectionLimits(20, 5));
    assertThat(ConnectionLimits.of(100, 0, 1_024)).isEqualTo(new ConnectionLimits(100, 100));
    assertThat(ConnectionLimits.of(0, 7, 1_024)).isEqualTo(new ConnectionLimits(768, 7));
  }

  @Test
  void thisProcessHasADescriptorLimit() {
    assertThat(ConnectionLimits.descriptorLimit()).isPositive();
  }

  @Test
  void limitsBelowOneAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> Agent.builder().maxConnections(0))
        .hasMessage("maxConnections must be at least 1, was 0");
    assertThatThrownBy(() -> Agent.builder().maxConnectionsPerClient(-1))
        .hasMessage("maxConnectionsPerClient must be at least 1, was -1");
  }
}
