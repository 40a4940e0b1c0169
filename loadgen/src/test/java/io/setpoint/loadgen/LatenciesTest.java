package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatenciesTest {

  @Test
  void percentilesAreNearestRankOverEveryPart() {
    Latencies a = new Latencies(1);
    Latencies b = new Latencies(1);
    for (int i = 100; i >= 1; i--) {
      (i % 2 == 0 ? a : b).add(i);
    }

    long[] sorted = Latencies.sortedUnion(List.of(a, b));

    assertThat(sorted).hasSize(100).startsWith(1, 2, 3).endsWith(99, 100);
    assertThat(Latencies.percentile(sorted, 50)).isEqualTo(50);
    assertThat(Latencies.percentile(sorted, 99)).isEqualTo(99);
    assertThat(Latencies.percentile(sorted, 99.9)).isEqualTo(100);
    assertThat(Latencies.percentile(sorted, 100)).isEqualTo(100);
    assertThat(Latencies.percentile(sorted, 0.5)).isEqualTo(1);
  }

  @Test
  void noSamplesHaveZeroPercentiles() {
    assertThat(Latencies.percentile(new long[0], 99)).isZero();
    assertThatThrownBy(() -> Latencies.percentile(new long[] {1}, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void bothSystemsGetPayloadsOfTheSameSizeThatDifferPerWrite() {
    assertThat(SetpointTarget.data(7).getSerializedSize()).isEqualTo(Target.PAYLOAD_BYTES);
    assertThat(SetpointTarget.data(Long.MAX_VALUE).getSerializedSize()).isEqualTo(Target.PAYLOAD_BYTES);
    assertThat(SetpointTarget.data(7)).isNotEqualTo(SetpointTarget.data(8));
    assertThat(Payloads.bytes(7, Target.PAYLOAD_BYTES)).hasSize(Target.PAYLOAD_BYTES)
        .isNotEqualTo(Payloads.bytes(8, Target.PAYLOAD_BYTES));
  }
}
