package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each Raft customization can be turned off, alone or all together, and the cluster still commits
 * writes from every member and answers linearizable reads: the other path is real, so what a
 * customization buys is measured against a working cluster (docs/benchmarks.md).
 */
class RaftCustomizationTest {
  private static final int WRITERS_PER_MEMBER = 4;

  static Stream<Set<RaftCustomization>> switchedOff() {
    return Stream.concat(
        Stream.of(RaftCustomization.values()).map(EnumSet::of),
        Stream.of(EnumSet.allOf(RaftCustomization.class)));
  }

  @ParameterizedTest
  @MethodSource("switchedOff")
  void everyMemberWritesAndReadsLinearizablyWithout(Set<RaftCustomization> off) {
    try (TestCluster cluster = TestCluster.startWithout(off, 3, TestCluster.FAST)) {
      RaftBackend leader = cluster.awaitLeader();
      RaftBackend follower = cluster.follower();
      List<CompletableFuture<Resource>> writes = new ArrayList<>();
      int n = 0;
      for (RaftBackend member : List.of(leader, follower)) {
        for (int i = 0; i < WRITERS_PER_MEMBER; i++) {
          var id = id("w" + n++);
          writes.add(CompletableFuture.supplyAsync(() -> member.writeCas(resource(id))));
        }
      }
      List<Resource> written = writes.stream().map(CompletableFuture::join).toList();
      for (RaftBackend member : cluster.members()) {
        for (Resource w : written) {
          assertThat(member.read(Consistency.STRONG, w.getId())).as("%s on a member, %s off", w.getId().getName(), off)
              .isEqualTo(w);
        }
      }
    }
  }

  @Test
  void thePropertyListsFlagsByName() {
    assertThat(RaftCustomization.parseOff("")).isEmpty();
    assertThat(RaftCustomization.parseOff(" inline-appends , FORWARD-STREAM,,"))
        .containsExactlyInAnyOrder(RaftCustomization.INLINE_APPENDS, RaftCustomization.FORWARD_STREAM);
  }

  @Test
  void anUnknownFlagIsRefusedWithTheKnownOnes() {
    assertThatThrownBy(() -> RaftCustomization.parseOff("inline-appends,fast-path"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("setpoint.raft.off")
        .hasMessageContaining("'fast-path'")
        .hasMessageContaining("commit-propagation, inline-appends, forward-stream, local-submitter, "
            + "no-metadata-entries");
  }
}
