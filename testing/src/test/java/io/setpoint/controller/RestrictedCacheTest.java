package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Shards;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.testing.SetpointExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cache restricted to hash ranges (a shard's) holds only the resources in them, moves between
 * ranges without reporting resources that left as deleted, and holds nothing with no range. In the
 * controller's package, where the cache is.
 */
class RestrictedCacheTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final List<HashRange> LOWER = List.of(Shards.range(0, Shards.SPACE / 2));
  private static final List<HashRange> UPPER = List.of(Shards.range(Shards.SPACE / 2, Shards.SPACE));

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final List<ID> labels = new ArrayList<>();
  private final List<ResourceEvent> events = new CopyOnWriteArrayList<>();
  private SharedCache cache;

  @BeforeEach
  void fill() {
    for (int i = 0; i < 200; i++) {
      labels.add(setpoint.client().write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "label-" + i))
          .setData(Any.pack(RecordLabel.newBuilder().setName("Label " + i).build())).build()).getId());
    }
    cache = new SharedCache(setpoint.client());
    cache.addListener(DemoTypes.RECORD_LABEL, events::add);
  }

  @AfterEach
  void close() {
    cache.close();
  }

  @Test
  void aRestrictedCacheHoldsOnlyItsRangesAndMovesWithoutFalseDeletes() throws Exception {
    cache.watch(DemoTypes.RECORD_LABEL);
    assertThat(cache.awaitPrimed(List.of(DemoTypes.RECORD_LABEL), WAIT)).isTrue();
    assertThat(cache.size(DemoTypes.RECORD_LABEL)).isEqualTo(200);

    assertThat(cache.restrict(DemoTypes.RECORD_LABEL, LOWER, WAIT)).isTrue();
    assertThat(names()).isEqualTo(namesIn(LOWER)).isNotEmpty();
    assertThat(events).as("labels leaving the ranges are not deleted").isEmpty();
    assertThat(cache.isWhole(DemoTypes.RECORD_LABEL)).isFalse();

    assertThat(cache.restrict(DemoTypes.RECORD_LABEL, UPPER, WAIT)).isTrue();
    assertThat(names()).isEqualTo(namesIn(UPPER));
    assertThat(events).as("labels entering the ranges come as upserts")
        .allMatch(e -> !e.isDelete() && Shards.in(Shards.hash(e.resource().getId()), UPPER))
        .hasSize(namesIn(UPPER).size());

    // Changes keep flowing for the ranges held, and only for them.
    events.clear();
    ID lower = labels.stream().filter(id -> Shards.in(Shards.hash(id), LOWER)).findFirst().orElseThrow();
    ID upper = labels.stream().filter(id -> Shards.in(Shards.hash(id), UPPER)).findFirst().orElseThrow();
    setpoint.client().delete(lower);
    setpoint.client().delete(upper);
    await().atMost(WAIT).until(() -> events.stream().anyMatch(ResourceEvent::isDelete));
    assertThat(events).extracting(e -> e.resource().getId().getName()).containsExactly(upper.getName());

    assertThat(cache.restrict(DemoTypes.RECORD_LABEL, List.of(), WAIT)).isTrue();
    assertThat(cache.size(DemoTypes.RECORD_LABEL)).isZero();
    assertThat(cache.unrestrict(DemoTypes.RECORD_LABEL, WAIT)).isTrue();
    assertThat(cache.size(DemoTypes.RECORD_LABEL)).isEqualTo(198);
  }

  @Test
  void aTypeRestrictedBeforeItIsWatchedIsListedOnlyInItsRanges() throws Exception {
    assertThat(cache.restrict(DemoTypes.RECORD_LABEL, LOWER, WAIT)).isTrue();
    assertThat(names()).isEqualTo(namesIn(LOWER));
  }

  @Test
  void aShareOfManyScatteredRangesIsHeldExactly() throws Exception {
    List<HashRange> scattered = new ArrayList<>();
    long width = Shards.SPACE / 1024;
    for (int i = 0; i < 1024; i += 2) {
      scattered.add(Shards.range(i * width, (i + 1) * width));
    }
    assertThat(cache.restrict(DemoTypes.RECORD_LABEL, List.of(), WAIT)).isTrue();
    assertThat(cache.restrict(DemoTypes.RECORD_LABEL, scattered, WAIT)).isTrue();
    assertThat(names()).isEqualTo(namesIn(scattered));
  }

  private List<String> names() {
    return cache.list(DemoTypes.RECORD_LABEL).stream().map(r -> r.getId().getName()).sorted().toList();
  }

  private List<String> namesIn(List<HashRange> ranges) {
    return labels.stream().filter(id -> Shards.in(Shards.hash(id), ranges)).map(ID::getName).sorted().toList();
  }
}
