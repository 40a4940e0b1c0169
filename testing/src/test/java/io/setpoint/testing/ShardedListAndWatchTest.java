package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Shards;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * List and WatchList serve only the resources whose shard hash falls in the ranges asked for: the
 * shares of three workers are disjoint and make up the whole type.
 */
class ShardedListAndWatchTest {
  private static final int LABELS = 150;
  private static final long THIRD = Shards.SPACE / 3;
  private static final List<List<HashRange>> WORKERS = List.of(
      List.of(Shards.range(0, THIRD)),
      List.of(Shards.range(THIRD, 2 * THIRD)),
      // A worker may own several ranges, as on a consistent-hash ring.
      List.of(Shards.range(2 * THIRD, 2 * THIRD + 100), Shards.range(2 * THIRD + 100, Shards.SPACE)));

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  @Test
  void theSharesOfThreeWorkersAreDisjointAndCoverTheType() {
    for (int i = 0; i < LABELS; i++) {
      label("label-" + i, "Label " + i);
    }
    Set<String> seen = new HashSet<>();
    for (List<HashRange> ranges : WORKERS) {
      // A small page size: every page of a sharded listing is filtered alike.
      List<Resource> share = setpoint.client().listAll(ListRequest.newBuilder().setType(DemoTypes.RECORD_LABEL)
          .setTenancy(Tenancies.partition("default")).setPageSize(50).addAllHashRanges(ranges).build());
      assertThat(share).as("about a third each").hasSizeBetween(LABELS / 5, LABELS / 2);
      for (Resource r : share) {
        assertThat(Shards.in(Shards.hash(r.getId()), ranges)).isTrue();
        assertThat(seen.add(r.getId().getName())).as("%s in one share only", r.getId().getName()).isTrue();
      }
    }
    assertThat(seen).hasSize(LABELS);
  }

  @Test
  void aShardedWatchSendsOnlyItsShareOfTheSnapshotAndOfLaterChanges() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      names.add(label("w-" + i, "W " + i).getId().getName());
    }
    List<HashRange> mine = WORKERS.get(0);
    try (Watch watch = setpoint.client().watch(WatchListRequest.newBuilder().setType(DemoTypes.RECORD_LABEL)
        .setTenancy(Tenancies.partition("default")).addAllHashRanges(mine).build())) {
      Set<String> snapshot = new HashSet<>();
      WatchEvent event;
      while ((event = watch.next()).hasUpsert()) {
        snapshot.add(event.getUpsert().getResource().getId().getName());
      }
      assertThat(event.hasEndOfSnapshot()).isTrue();
      assertThat(snapshot).isEqualTo(inShare(names, mine));

      // Touch every label: the watch tells of those of its share, in order, and of no other.
      for (String name : names) {
        label(name, "Renamed " + name);
      }
      label("sentinel", "Sentinel");
      String sentinelShare = Shards.in(Shards.hash(id("sentinel")), mine) ? "mine" : "other";
      List<String> changed = new ArrayList<>();
      while (changed.size() < snapshot.size() + (sentinelShare.equals("mine") ? 1 : 0)) {
        changed.add(watch.next().getUpsert().getResource().getId().getName());
      }
      assertThat(new HashSet<>(changed)).isEqualTo(sentinelShare.equals("mine")
          ? union(snapshot, "sentinel") : snapshot);
    }
  }

  @Test
  void rangesOutsideTheHashSpaceOrEmptyAreRefusedNamingTheRange() {
    ListRequest bad = ListRequest.newBuilder().setType(DemoTypes.RECORD_LABEL).setTenancy(Tenancies.partition("default"))
        .addHashRanges(Shards.range(0, Shards.SPACE + 1)).addHashRanges(Shards.range(5, 5)).build();

    assertThatThrownBy(() -> setpoint.client().list(bad))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
          assertThat(e.violations()).extracting(SetpointException.FieldViolation::field)
              .containsExactly("hash_ranges[0].end", "hash_ranges[1].start");
        });
  }

  private Resource label(String name, String display) {
    return setpoint.client().write(Resource.newBuilder().setId(id(name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(display).build())).build());
  }

  private static io.setpoint.api.v1.ID id(String name) {
    return Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name);
  }

  private static Set<String> inShare(List<String> names, List<HashRange> ranges) {
    Set<String> out = new HashSet<>();
    for (String name : names) {
      if (Shards.in(Shards.hash(id(name)), ranges)) {
        out.add(name);
      }
    }
    return out;
  }

  private static Set<String> union(Set<String> set, String one) {
    Set<String> out = new HashSet<>(set);
    out.add(one);
    return out;
  }

  @Test
  void overHttpAListTakesTheRangesAsAParameter() throws Exception {
    for (int i = 0; i < 30; i++) {
      label("h-" + i, "H " + i);
    }
    List<HashRange> mine = WORKERS.get(2);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    String base = "http://127.0.0.1:" + setpoint.agent().port() + "/api/demo/v1/RecordLabel?partition=default";
    String ranges = mine.stream().map(r -> r.getStart() + "-" + r.getEnd()).collect(Collectors.joining(","));

    HttpResponse<String> share = http.send(HttpRequest.newBuilder(URI.create(base + "&hash_ranges=" + ranges)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(share.statusCode()).as(share.body()).isEqualTo(200);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      if (Shards.in(Shards.hash(id("h-" + i)), mine)) {
        expected.add("\"name\":\"h-" + i + "\"");
      }
    }
    assertThat(expected).isNotEmpty();
    assertThat(share.body()).contains(expected);
    assertThat(share.body().split("\"name\":\"h-", -1)).hasSize(expected.size() + 1);

    HttpResponse<String> malformed = http.send(HttpRequest.newBuilder(URI.create(base + "&hash_ranges=5")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body()).contains("hash_ranges");
  }
}
