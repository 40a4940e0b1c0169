package io.setpoint.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Shard hashes are part of the wire contract: workers and servers of different versions must put
 * a resource in the same shard, so the values are pinned here.
 */
class ShardsTest {
  @Test
  void theHashOfAnIdIsPinnedAndIgnoresTheType() {
    assertThat(Shards.hash(Ids.of(Types.of("demo", "v1", "RecordLabel"), Tenancies.partition("default"), "verve")))
        .isEqualTo(911362828L);
    long artist = Shards.hash(Ids.of(Types.of("demo", "v2", "Artist"), Tenancies.of("default", "default"), "miles-davis"));
    assertThat(artist).isEqualTo(1258738244L);
    assertThat(Shards.hash(Ids.of(Types.of("demo", "v2", "Album"), Tenancies.of("default", "default"), "miles-davis")))
        .as("name-aligned types share a shard").isEqualTo(artist);
    assertThat(Shards.hash(Ids.of(Types.of("demo", "v2", "Artist"), Tenancies.of("other", "default"), "miles-davis")))
        .as("the tenancy counts").isNotEqualTo(artist);
  }

  @Test
  void theHashOfAKeyIsPinned() {
    assertThat(Shards.hash("inventory/item-1")).isEqualTo(2817287903L);
    assertThat(Shards.hash("")).isBetween(0L, Shards.SPACE - 1);
  }

  @Test
  void rangesAreHalfOpenAndNoRangesMeansEverything() {
    List<io.setpoint.api.v1.HashRange> ranges = List.of(Shards.range(10, 20), Shards.range(30, Shards.SPACE));
    assertThat(Shards.in(10, ranges)).isTrue();
    assertThat(Shards.in(19, ranges)).isTrue();
    assertThat(Shards.in(20, ranges)).isFalse();
    assertThat(Shards.in(Shards.SPACE - 1, ranges)).isTrue();
    assertThat(Shards.in(5, List.of())).isTrue();
  }
}
