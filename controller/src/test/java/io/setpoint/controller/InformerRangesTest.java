package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Shards;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What an informer lists when its ranges grow: only the parts it did not hold. */
class InformerRangesTest {
  @Test
  void minusCutsEveryOverlapAndKeepsTheRest() {
    assertThat(Informer.minus(List.of(Shards.range(0, 100)), List.of(Shards.range(10, 20), Shards.range(50, 60))))
        .containsExactly(Shards.range(0, 10), Shards.range(20, 50), Shards.range(60, 100));
    assertThat(Informer.minus(List.of(Shards.range(0, 100)), List.of(Shards.range(50, 60), Shards.range(0, 30))))
        .as("cuts in any order").containsExactly(Shards.range(30, 50), Shards.range(60, 100));
    assertThat(Informer.minus(List.of(Shards.range(10, 20)), List.of(Shards.range(0, 100)))).isEmpty();
    assertThat(Informer.minus(List.of(Shards.range(10, 20), Shards.range(30, 40)), List.of()))
        .containsExactly(Shards.range(10, 20), Shards.range(30, 40));
    assertThat(Informer.minus(List.of(Shards.range(10, 20)), List.of(Shards.range(20, 30), Shards.range(0, 10))))
        .as("ranges are half-open: touching is not overlapping").containsExactly(Shards.range(10, 20));
  }
}
