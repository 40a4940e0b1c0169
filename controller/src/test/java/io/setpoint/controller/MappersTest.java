package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Mappers.DependencyMapper;
import io.setpoint.controller.Tools.EventRecorder;
import io.setpoint.controller.cache.Cache;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The mappers that need nothing but the changed resource. The cache-backed ones (cacheGet,
 * cacheList, cacheParents, selector, andThen) are tested against a real SharedCache in the testing
 * module's InformerTest.
 */
class MappersTest {
  private static final Type ARTIST = Types.of("demo", "v2", "Artist");
  private static final Type ALBUM = Types.of("demo", "v2", "Album");
  private static final Type TRACK = Types.of("demo", "v2", "Track");
  private static final Type ARTIST_V1 = Types.of("demo", "v1", "Artist");

  /** A runtime that fails on any use: these mappers must not touch it. */
  private record UnusedTools() implements Tools {
    @Override
    public SetpointClient client() {
      throw new AssertionError("client() must not be used");
    }

    @Override
    public Cache cache() {
      throw new AssertionError("cache() must not be used");
    }

    @Override
    public Logger logger() {
      throw new AssertionError("logger() must not be used");
    }

    @Override
    public EventRecorder events() {
      throw new AssertionError("events() must not be used");
    }

    @Override
    public Clock clock() {
      throw new AssertionError("clock() must not be used");
    }
  }

  private static final Tools TOOLS = new UnusedTools();

  private static ID id(Type type, String name) {
    return Ids.of(type, Tenancies.of("p1", "ns1"), name).toBuilder().setUid("uid-" + name).build();
  }

  private static Resource album(String name, ID owner) {
    Resource.Builder b = Resource.newBuilder().setId(id(ALBUM, name));
    if (owner != null) {
      b.setOwner(owner);
    }
    return b.build();
  }

  @Test
  void ownerMapsToTheOwnerWithoutItsUid() {
    ID owner = id(ARTIST, "nina");

    assertThat(Mappers.owner().map(TOOLS, album("blue", owner)))
        .containsExactly(Request.of(Ids.withoutUid(owner)));
    assertThat(Mappers.owner().map(TOOLS, album("blue", owner)).iterator().next().id().getUid()).isEmpty();
  }

  @Test
  void ownerOfAResourceWithoutOwnerIsNothing() {
    assertThat(Mappers.owner().map(TOOLS, album("orphan", null))).isEmpty();
  }

  @Test
  void ownerOfTypeMapsOnlyOwnersOfThatExactType() {
    Resource ownedByArtist = album("blue", id(ARTIST, "nina"));
    Resource ownedByTrack = album("weird", id(TRACK, "t"));
    Resource ownedByOldArtist = album("old", id(ARTIST_V1, "nina"));

    assertThat(Mappers.ownerOfType(ARTIST).map(TOOLS, ownedByArtist))
        .containsExactly(Request.of(id(ARTIST, "nina")));
    assertThat(Mappers.ownerOfType(ARTIST).map(TOOLS, ownedByTrack)).isEmpty();
    // The version is part of the type compared.
    assertThat(Mappers.ownerOfType(ARTIST).map(TOOLS, ownedByOldArtist)).isEmpty();
    assertThat(Mappers.ownerOfType(ARTIST).map(TOOLS, album("orphan", null))).isEmpty();
  }

  @Test
  void replaceTypeKeepsTenancyAndNameAndDropsTheUid() {
    Resource artist = Resource.newBuilder().setId(id(ARTIST, "nina")).build();

    var requests = List.copyOf(Mappers.replaceType(ALBUM).map(TOOLS, artist));

    assertThat(requests).hasSize(1);
    ID mapped = requests.get(0).id();
    assertThat(mapped.getType()).isEqualTo(ALBUM);
    assertThat(mapped.getTenancy()).isEqualTo(Tenancies.of("p1", "ns1"));
    assertThat(mapped.getName()).isEqualTo("nina");
    assertThat(mapped.getUid()).isEmpty();
  }

  @Test
  void multiIsTheUnionWithoutDuplicatesInMapperOrder() {
    ID owner = id(ARTIST, "nina");
    Resource blue = album("blue", owner);

    DependencyMapper mapper = Mappers.multi(
        Mappers.owner(), Mappers.ownerOfType(ARTIST), Mappers.replaceType(TRACK), Mappers.owner());

    assertThat(mapper.map(TOOLS, blue)).containsExactly(
        Request.of(owner), Request.of(Ids.of(TRACK, Tenancies.of("p1", "ns1"), "blue")));
  }

  @Test
  void multiOfNothingMapsToNothing() {
    assertThat(Mappers.multi().map(TOOLS, album("blue", id(ARTIST, "nina")))).isEmpty();
  }

  @Test
  void andConcatenatesAndDeduplicates() {
    ID owner = id(ARTIST, "nina");
    Resource blue = album("blue", owner);
    DependencyMapper fixed = (runtime, resource) -> List.of(
        Request.of(id(TRACK, "t1")), Request.of(owner), Request.of(id(TRACK, "t1")));

    assertThat(Mappers.owner().and(fixed).map(TOOLS, blue))
        .containsExactly(Request.of(owner), Request.of(id(TRACK, "t1")));
    assertThat(fixed.and(Mappers.owner()).map(TOOLS, blue))
        .containsExactly(Request.of(id(TRACK, "t1")), Request.of(owner));
    assertThat(Mappers.owner().and(Mappers.ownerOfType(TRACK)).map(TOOLS, album("x", null))).isEmpty();
  }

  @Test
  void requestsDropUidsSoIncarnationsCoalesce() {
    assertThat(Request.of(id(ARTIST, "nina"))).isEqualTo(Request.of(Ids.withoutUid(id(ARTIST, "nina"))));
  }
}
