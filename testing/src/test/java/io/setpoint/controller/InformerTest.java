package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Mappers.DependencyMapper;
import io.setpoint.controller.Tools.EventRecorder;
import io.setpoint.controller.cache.Cache;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.Hooks;
import io.setpoint.testing.SetpointExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;

/**
 * The controller cache ({@link SharedCache} and its informers) against a real agent, and the
 * cache-backed mappers resolving through it; in the controller's package, where the cache is. One
 * agent per class; each test uses its own names.
 */
class InformerTest {
  @RegisterExtension
  static final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register))
      .build();

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String BY_LABEL = "byLabel";

  private SharedCache cache;

  /** Tools whose only working part is the cache under test. */
  private record CacheTools(Cache cache) implements Tools {
    @Override
    public SetpointClient client() {
      throw new AssertionError("mappers must not call the server");
    }

    @Override
    public Logger logger() {
      throw new UnsupportedOperationException();
    }

    @Override
    public EventRecorder events() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Clock clock() {
      throw new UnsupportedOperationException();
    }
  }

  @BeforeEach
  void newCache() {
    cache = new SharedCache(setpoint.client());
  }

  @AfterEach
  void closeCache() {
    cache.close();
  }

  private static Resource artist(String name, String label) {
    Artist.Builder data = Artist.newBuilder().setName(name);
    if (label != null) {
      data.setLabel(label);
    }
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name)).setData(Any.pack(data.build())).build());
  }

  private static Resource label(String name) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build())).build());
  }

  private static ID labelId(String name) {
    return Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition(Tenancies.DEFAULT), name);
  }

  /** Artists by the key of the record label they name. */
  private static Index byLabel() {
    return Index.of(BY_LABEL, r -> {
      String label = Hooks.decode(r, Artist.class).data().getLabel();
      return label.isEmpty() ? null : Index.keyOf(labelId(label));
    });
  }

  private void prime(io.setpoint.api.v1.Type... types) throws InterruptedException {
    assertThat(cache.awaitPrimed(List.of(types), WAIT)).isTrue();
  }

  private static List<String> names(List<Resource> resources) {
    return resources.stream().map(r -> r.getId().getName()).toList();
  }

  private static List<String> names(java.util.Collection<Request> requests) {
    return requests.stream().map(r -> r.id().getName()).toList();
  }

  @Test
  void aPrimedCacheHoldsWhatWasWrittenBefore() throws Exception {
    Resource a = artist("pre-a", null);
    Resource b = artist("pre-b", null);

    prime(DemoTypes.ARTIST);

    assertThat(cache.get(Ids.withoutUid(a.getId()))).contains(a);
    assertThat(cache.get(b.getId())).contains(b);
    assertThat(names(cache.list(DemoTypes.ARTIST))).contains("pre-a", "pre-b");
    assertThat(cache.size(DemoTypes.ARTIST)).isEqualTo(cache.list(DemoTypes.ARTIST).size());
    assertThat(cache.getDecoded(a.getId(), Artist.class).orElseThrow().data().getName()).isEqualTo("pre-a");
  }

  @Test
  void laterWritesAndDeletesArriveAndListenersSeeThemInOrder() throws Exception {
    prime(DemoTypes.ARTIST);
    List<ResourceEvent> events = new CopyOnWriteArrayList<>();
    cache.addListener(DemoTypes.ARTIST, event -> {
      if (event.resource().getId().getName().equals("ev-x")) {
        events.add(event);
      }
    });

    Resource created = artist("ev-x", null);
    await().atMost(WAIT).until(() -> cache.get(created.getId()).isPresent());
    Resource updated = artist("ev-x", "verve");
    await().atMost(WAIT).until(() -> cache.get(created.getId()).map(r -> r.getVersion().equals(updated.getVersion()))
        .orElse(false));
    assertThat(Hooks.decode(cache.get(created.getId()).orElseThrow(), Artist.class).data().getLabel())
        .isEqualTo("verve");
    setpoint.client().delete(created.getId());
    await().atMost(WAIT).until(() -> cache.get(Ids.withoutUid(created.getId())).isEmpty());
    await().atMost(WAIT).until(() -> events.size() >= 3);

    assertThat(events).extracting(ResourceEvent::kind).containsExactly(
        ResourceEvent.Kind.UPSERT, ResourceEvent.Kind.UPSERT, ResourceEvent.Kind.DELETE);
    assertThat(events.get(0).previous()).isNull();
    assertThat(events.get(0).resource()).isEqualTo(created);
    assertThat(events.get(1).previous()).isEqualTo(created);
    assertThat(events.get(1).resource()).isEqualTo(updated);
    assertThat(events.get(2).previous()).isEqualTo(updated);
    assertThat(events.get(2).resource().getId().getUid()).isEqualTo(created.getId().getUid());
    assertThat(events).extracting(ResourceEvent::revision).isSorted();
    assertThat(events.get(0).revision()).isLessThan(events.get(2).revision());
  }

  @Test
  void aRemovedListenerHearsNothingMore() throws Exception {
    prime(DemoTypes.ARTIST);
    List<ResourceEvent> removed = new CopyOnWriteArrayList<>();
    List<ResourceEvent> kept = new CopyOnWriteArrayList<>();
    java.util.function.Consumer<ResourceEvent> gone = event -> {
      if (event.resource().getId().getName().startsWith("rl-")) {
        removed.add(event);
      }
    };
    cache.addListener(DemoTypes.ARTIST, gone);
    cache.addListener(DemoTypes.ARTIST, event -> {
      if (event.resource().getId().getName().startsWith("rl-")) {
        kept.add(event);
      }
    });

    artist("rl-1", null);
    await().atMost(WAIT).until(() -> removed.size() == 1 && kept.size() == 1);
    cache.removeListener(DemoTypes.ARTIST, gone);
    artist("rl-2", null);
    await().atMost(WAIT).until(() -> kept.size() == 2);

    assertThat(removed).hasSize(1);
  }

  @Test
  void indexesAnswerListByIndexGetByIndexAndParents() throws Exception {
    artist("ix-nina", "ix-verve");
    prime(DemoTypes.ARTIST);
    // Added after priming: filled from what is cached.
    cache.addIndex(DemoTypes.ARTIST, byLabel());
    // Names as paths: "ix-ella" is indexed as "ix/ella".
    cache.addIndex(DemoTypes.ARTIST, Index.of("byPath", r -> r.getId().getName().replace('-', '/')));

    assertThat(names(cache.listByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-verve")))))
        .containsExactly("ix-nina");

    artist("ix-ella", "ix-verve");
    artist("ix-miles", "ix-columbia");
    await().atMost(WAIT).until(() ->
        cache.listByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-verve"))).size() == 2
            && cache.getByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-columbia"))).isPresent());

    assertThat(names(cache.listByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-verve")))))
        .containsExactlyInAnyOrder("ix-nina", "ix-ella");
    assertThat(cache.getByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-columbia"))))
        .map(r -> r.getId().getName()).contains("ix-miles");
    assertThat(cache.getByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-nobody")))).isEmpty();
    // "ix/ella" and "ix" are ancestors of "ix/ella/b"; "ix/e" (a character prefix) and "ix/miles" are not.
    artist("ix", null);
    artist("ix-e", null);
    await().atMost(WAIT).until(() -> cache.getByIndex(DemoTypes.ARTIST, "byPath", "ix").isPresent()
        && cache.getByIndex(DemoTypes.ARTIST, "byPath", "ix/e").isPresent());
    assertThat(names(cache.parents(DemoTypes.ARTIST, "byPath", "ix/ella/b")))
        .containsExactly("ix-ella", "ix");

    // Moving label leaves the old key.
    artist("ix-ella", "ix-columbia");
    await().atMost(WAIT).until(() ->
        cache.listByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-columbia"))).size() == 2);
    assertThat(names(cache.listByIndex(DemoTypes.ARTIST, BY_LABEL, Index.keyOf(labelId("ix-verve")))))
        .containsExactly("ix-nina");

    assertThatThrownBy(() -> cache.listByIndex(DemoTypes.ARTIST, "noSuchIndex", "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("noSuchIndex");
    assertThatThrownBy(() -> cache.listByIndex(DemoTypes.EXECUTIVE, BY_LABEL, "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Types.format(DemoTypes.EXECUTIVE));
  }

  @Test
  void cacheBackedMappersResolveThroughTheCache() throws Exception {
    Resource verve = label("mp-verve");
    Resource columbia = label("mp-columbia");
    Resource nina = artist("mp-nina", "mp-verve");
    Resource ella = artist("mp-ella", "mp-verve");
    Resource miles = artist("mp-miles", "mp-columbia");
    cache.addIndex(DemoTypes.ARTIST, byLabel());
    // Labels by the artist tenancy they look after: label "mp-verve" is a parent of every artist
    // in default/default (an ancestor of their keys); artists elsewhere have no parent label.
    cache.addIndex(DemoTypes.RECORD_LABEL, Index.of("artistPrefix", r ->
        r.getId().getName().equals("mp-verve") ? "demo.Artist/default/default" : null));
    prime(DemoTypes.ARTIST, DemoTypes.RECORD_LABEL);
    Tools tools = new CacheTools(cache);

    // cacheGet: the one artist indexed under the label's key (columbia has one).
    assertThat(Mappers.cacheGet(DemoTypes.ARTIST, BY_LABEL).map(tools, columbia))
        .containsExactly(Request.of(miles.getId()));
    assertThat(Mappers.cacheGet(DemoTypes.ARTIST, BY_LABEL).map(tools, label("mp-empty"))).isEmpty();

    // cacheList: every artist of the label.
    assertThat(names(Mappers.cacheList(DemoTypes.ARTIST, BY_LABEL).map(tools, verve)))
        .containsExactlyInAnyOrder("mp-nina", "mp-ella");

    // cacheList with a key computed from the changed resource (here: from an artist, its label's peers).
    DependencyMapper peers = Mappers.cacheList(DemoTypes.ARTIST, BY_LABEL, r -> {
      String l = Hooks.decode(r, Artist.class).data().getLabel();
      return l.isEmpty() ? null : Index.keyOf(labelId(l));
    });
    assertThat(names(peers.map(tools, nina))).containsExactlyInAnyOrder("mp-nina", "mp-ella");
    assertThat(peers.map(tools, Resource.newBuilder(nina)
        .setData(Any.pack(Artist.newBuilder().setName("x").build())).build())).isEmpty();

    // cacheParents: labels whose index holds an ancestor of the changed artist's key.
    Resource verveSolo = artist("mp-verve-solo", null);
    assertThat(names(Mappers.cacheParents(DemoTypes.RECORD_LABEL, "artistPrefix").map(tools, verveSolo)))
        .containsExactly("mp-verve");
    Resource elsewhere = setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of(Tenancies.DEFAULT, "elsewhere"), "mp-away"))
        .setData(Any.pack(Artist.newBuilder().setName("Away").build())).build());
    assertThat(Mappers.cacheParents(DemoTypes.RECORD_LABEL, "artistPrefix").map(tools, elsewhere)).isEmpty();

    // selector: every label whose selector selects the changed artist.
    DependencyMapper signedBy = Mappers.selector(DemoTypes.RECORD_LABEL,
        l -> a -> Hooks.decode(a, Artist.class).data().getLabel().equals(l.getId().getName()));
    assertThat(signedBy.map(tools, ella)).containsExactly(Request.of(verve.getId()));
    assertThat(signedBy.map(tools, miles)).containsExactly(Request.of(columbia.getId()));

    // andThen: album -> owning artist (looked up in the cache) -> that artist's label.
    DependencyMapper labelOfArtist = (unused, a) -> {
      String l = Hooks.decode(a, Artist.class).data().getLabel();
      return l.isEmpty() ? List.of() : List.of(Request.of(labelId(l)));
    };
    DependencyMapper albumToLabel = Mappers.ownerOfType(DemoTypes.ARTIST).andThen(labelOfArtist);
    Resource album = Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ALBUM, Tenancies.of(Tenancies.DEFAULT, Tenancies.DEFAULT), "mp-blue"))
        .setOwner(nina.getId())
        .setData(Any.pack(Album.newBuilder().setName("Blue").build()))
        .build();
    assertThat(albumToLabel.map(tools, album)).containsExactly(Request.of(verve.getId()));
    // An intermediate the cache does not hold maps to nothing.
    Resource orphan = album.toBuilder()
        .setOwner(Ids.of(DemoTypes.ARTIST, Tenancies.of(Tenancies.DEFAULT, Tenancies.DEFAULT), "mp-nobody"))
        .build();
    assertThat(albumToLabel.map(tools, orphan)).isEmpty();
    // Two albums' owners on the same label: one request.
    DependencyMapper both = ((DependencyMapper) (unused, r) -> List.of(Request.of(nina.getId()), Request.of(ella.getId())))
        .andThen(labelOfArtist);
    assertThat(both.map(tools, album)).containsExactly(Request.of(verve.getId()));
  }

  @Test
  void getWithAStaleUidReturnsEmpty() throws Exception {
    Resource first = artist("uid-x", null);
    prime(DemoTypes.ARTIST);
    assertThat(cache.get(first.getId())).contains(first);
    assertThat(cache.get(first.getId().toBuilder().setUid("not-a-uid").build())).isEmpty();

    setpoint.client().delete(first.getId());
    Resource second = artist("uid-x", null);
    assertThat(second.getId().getUid()).isNotEqualTo(first.getId().getUid());
    await().atMost(WAIT).until(() -> cache.get(second.getId()).isPresent());

    assertThat(cache.get(first.getId())).isEmpty();
    assertThat(cache.get(Ids.withoutUid(first.getId()))).contains(cache.get(second.getId()).orElseThrow());
  }

  @Test
  void unknownOrUnwatchedTypesAreEmptyOrRejected() throws Exception {
    prime(DemoTypes.ARTIST);
    assertThat(cache.list(DemoTypes.EXECUTIVE)).isEmpty();
    assertThat(cache.get(Ids.of(DemoTypes.EXECUTIVE, "boss"))).isEmpty();
    assertThatThrownBy(() -> cache.watch(Types.of("nope", "v1", "Missing")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
  }

  @Test
  void closeStopsTheCache() throws Exception {
    prime(DemoTypes.ARTIST);
    List<ResourceEvent> events = new CopyOnWriteArrayList<>();
    cache.addListener(DemoTypes.ARTIST, event -> {
      if (event.resource().getId().getName().startsWith("cl-")) {
        events.add(event);
      }
    });
    Resource before = artist("cl-before", null);
    await().atMost(WAIT).until(() -> events.size() == 1);

    cache.close();
    Resource after = artist("cl-after", null);
    // A fresh cache sees the write, so the server has it ...
    try (SharedCache fresh = new SharedCache(setpoint.client())) {
      assertThat(fresh.awaitPrimed(List.of(DemoTypes.ARTIST), WAIT)).isTrue();
      assertThat(fresh.get(after.getId())).isPresent();
    }
    // ... but the closed one stays as it was.
    await().during(Duration.ofMillis(500)).atMost(WAIT).until(() ->
        cache.get(Ids.withoutUid(after.getId())).isEmpty() && events.size() == 1);
    assertThat(cache.get(before.getId())).isPresent();
    assertThat(Objects.requireNonNull(events.get(0).resource())).isEqualTo(before);
  }
}
