package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.cache.Index;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-type store and its indexes, driven directly (no watch). */
class TypeStoreTest {
  private static final Type ARTIST = Types.of("demo", "v2", "Artist");
  private static final Type LABEL = Types.of("demo", "v1", "RecordLabel");

  private final TypeStore store = new TypeStore();

  private static Resource resource(String name, String... metadata) {
    Resource.Builder b = Resource.newBuilder()
        .setId(Ids.of(ARTIST, Tenancies.of("default", "default"), name).toBuilder().setUid("uid-" + name))
        .setVersion("1");
    for (int i = 0; i + 1 < metadata.length; i += 2) {
      b.putMetadata(metadata[i], metadata[i + 1]);
    }
    return b.build();
  }

  /** Single-valued: metadata "label". */
  private static Index byLabel() {
    return Index.of("byLabel", r -> r.getMetadataOrDefault("label", null));
  }

  /** Multi-valued: metadata "members", comma separated. */
  private static Index byMember() {
    return Index.multi("byMember", r -> {
      String members = r.getMetadataOrDefault("members", "");
      return members.isEmpty() ? List.of() : Arrays.asList(members.split(","));
    });
  }

  private static List<String> names(List<Resource> resources) {
    return resources.stream().map(r -> r.getId().getName()).toList();
  }

  @Test
  void putStoresUnderTheKeyAndReturnsWhatItReplaced() {
    Resource first = resource("nina", "label", "verve");
    Resource second = resource("nina", "label", "philips").toBuilder().setVersion("2").build();

    assertThat(store.put(first)).isNull();
    assertThat(store.put(second)).isSameAs(first);

    assertThat(store.get(Index.keyOf(first.getId()))).isSameAs(second);
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.keys()).containsExactly(Index.keyOf(first.getId()));
  }

  @Test
  void allIsInKeyOrder() {
    store.put(resource("c"));
    store.put(resource("a"));
    store.put(resource("b"));

    assertThat(names(store.all())).containsExactly("a", "b", "c");
  }

  @Test
  void singleValuedIndexFollowsPutReplaceAndRemove() {
    store.addIndex(byLabel());
    store.put(resource("nina", "label", "verve"));
    store.put(resource("ella", "label", "verve"));
    store.put(resource("miles", "label", "columbia"));
    store.put(resource("nolabel"));

    assertThat(names(store.byIndex("byLabel", "verve"))).containsExactlyInAnyOrder("nina", "ella");
    assertThat(names(store.byIndex("byLabel", "columbia"))).containsExactly("miles");

    // nina moves label: she must leave "verve" and join "philips".
    store.put(resource("nina", "label", "philips"));
    assertThat(names(store.byIndex("byLabel", "verve"))).containsExactly("ella");
    assertThat(names(store.byIndex("byLabel", "philips"))).containsExactly("nina");

    // ella loses her label altogether: she leaves the index.
    store.put(resource("ella"));
    assertThat(store.byIndex("byLabel", "verve")).isEmpty();

    // miles is removed.
    Resource removed = store.remove(Index.keyOf(resource("miles").getId()));
    assertThat(removed.getId().getName()).isEqualTo("miles");
    assertThat(store.byIndex("byLabel", "columbia")).isEmpty();
    assertThat(store.get(Index.keyOf(resource("miles").getId()))).isNull();
  }

  @Test
  void emptyOrNullSingleKeyLeavesTheResourceOut() {
    store.addIndex(byLabel());
    store.put(resource("empty", "label", ""));
    store.put(resource("none"));

    assertThat(store.byIndex("byLabel", "")).isEmpty();
    assertThat(store.size()).isEqualTo(2);
  }

  @Test
  void multiValuedIndexFollowsPutReplaceAndRemove() {
    store.addIndex(byMember());
    store.put(resource("beatles", "members", "john,paul,george,ringo"));
    store.put(resource("wings", "members", "paul,linda"));

    assertThat(names(store.byIndex("byMember", "paul"))).containsExactlyInAnyOrder("beatles", "wings");
    assertThat(names(store.byIndex("byMember", "ringo"))).containsExactly("beatles");

    // Ringo leaves and Pete joins: the old key is dropped, the kept ones stay, the new one appears.
    store.put(resource("beatles", "members", "john,paul,george,pete"));
    assertThat(store.byIndex("byMember", "ringo")).isEmpty();
    assertThat(names(store.byIndex("byMember", "pete"))).containsExactly("beatles");
    assertThat(names(store.byIndex("byMember", "paul"))).containsExactlyInAnyOrder("beatles", "wings");

    store.remove(Index.keyOf(resource("wings").getId()));
    assertThat(names(store.byIndex("byMember", "paul"))).containsExactly("beatles");
    assertThat(store.byIndex("byMember", "linda")).isEmpty();
  }

  @Test
  void removedResourcesVanishFromEveryIndex() {
    store.addIndex(byLabel());
    store.addIndex(byMember());
    Resource band = resource("band", "label", "verve", "members", "a,b");
    store.put(band);

    assertThat(store.remove(Index.keyOf(band.getId()))).isSameAs(band);

    assertThat(store.byIndex("byLabel", "verve")).isEmpty();
    assertThat(store.byIndex("byMember", "a")).isEmpty();
    assertThat(store.byIndex("byMember", "b")).isEmpty();
    assertThat(store.all()).isEmpty();
    assertThat(store.size()).isZero();
  }

  @Test
  void removingAnAbsentKeyReturnsNullAndChangesNothing() {
    store.addIndex(byLabel());
    store.put(resource("nina", "label", "verve"));

    assertThat(store.remove(Index.keyOf(resource("ghost").getId()))).isNull();
    assertThat(names(store.byIndex("byLabel", "verve"))).containsExactly("nina");
  }

  @Test
  void anIndexAddedAfterResourcesWereStoredIsFilled() {
    store.put(resource("nina", "label", "verve"));
    store.put(resource("ella", "label", "verve"));
    store.put(resource("miles", "label", "columbia"));
    assertThat(store.hasIndex("byLabel")).isFalse();

    store.addIndex(byLabel());

    assertThat(store.hasIndex("byLabel")).isTrue();
    assertThat(names(store.byIndex("byLabel", "verve"))).containsExactlyInAnyOrder("nina", "ella");
    assertThat(names(store.byIndex("byLabel", "columbia"))).containsExactly("miles");
    // and it keeps following later changes
    store.put(resource("miles", "label", "verve"));
    assertThat(store.byIndex("byLabel", "columbia")).isEmpty();
    assertThat(names(store.byIndex("byLabel", "verve"))).containsExactlyInAnyOrder("nina", "ella", "miles");
  }

  @Test
  void addingAnIndexNameTwiceKeepsTheFirst() {
    store.put(resource("nina", "label", "verve"));
    store.addIndex(byLabel());
    store.addIndex(Index.of("byLabel", r -> "other"));

    assertThat(names(store.byIndex("byLabel", "verve"))).containsExactly("nina");
    assertThat(store.byIndex("byLabel", "other")).isEmpty();
  }

  @Test
  void parentsReturnsEntriesWhoseKeyIsAPrefix() {
    store.addIndex(Index.of("byPath", r -> r.getMetadataOrDefault("path", null)));
    store.put(resource("root", "path", "a"));
    store.put(resource("mid", "path", "a/b"));
    store.put(resource("leaf", "path", "a/b/c"));
    store.put(resource("sibling", "path", "a/x"));
    store.put(resource("other", "path", "z"));

    assertThat(names(store.parents("byPath", "a/b/c"))).containsExactlyInAnyOrder("root", "mid", "leaf");
    assertThat(names(store.parents("byPath", "a/b/c/d"))).containsExactlyInAnyOrder("root", "mid", "leaf");
    assertThat(names(store.parents("byPath", "a/b"))).containsExactlyInAnyOrder("root", "mid");
    assertThat(names(store.parents("byPath", "a/x/y"))).containsExactlyInAnyOrder("root", "sibling");
    assertThat(store.parents("byPath", "q")).isEmpty();
    assertThat(store.parents("byPath", "")).isEmpty();
  }

  @Test
  void byIndexAndParentsOnAnUnknownIndexThrowNamingIt() {
    store.put(resource("nina"));

    assertThatThrownBy(() -> store.byIndex("noSuchIndex", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("noSuchIndex");
    assertThatThrownBy(() -> store.parents("alsoMissing", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("alsoMissing");
  }

  @Test
  void indexNeedsANonEmptyName() {
    assertThatThrownBy(() -> Index.of("", r -> "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Index.of(null, r -> "x")).isInstanceOf(NullPointerException.class);
  }

  @Test
  void boundReferencesIndexesEveryConditionResourceAcrossAllStatusEntries() {
    ID label1 = Ids.of(LABEL, Tenancies.partition("default"), "verve");
    ID label2 = Ids.of(LABEL, Tenancies.partition("default"), "columbia");
    ID album = Ids.of(Types.of("demo", "v2", "Album"), Tenancies.of("default", "default"), "blue");
    Resource bound = resource("nina").toBuilder()
        .putStatus("demo.setpoint.io/artist", Status.newBuilder()
            .addConditions(Condition.newBuilder().setType("Label").setResource(Ids.reference(label1)))
            .addConditions(Condition.newBuilder().setType("Accepted")) // no resource: contributes nothing
            .addConditions(Condition.newBuilder().setType("Album1").setResource(Ids.reference(album, "tracks")))
            .build())
        .putStatus("other.io/controller", Status.newBuilder()
            .addConditions(Condition.newBuilder().setType("Distributor").setResource(Ids.reference(label2)))
            .addConditions(Condition.newBuilder().setType("Again").setResource(Ids.reference(label1)))
            .build())
        .build();

    Index index = Index.boundReferences("bound");
    assertThat(index.name()).isEqualTo("bound");
    assertThat(index.keys().apply(bound)).containsExactlyInAnyOrder(
        Index.keyOf(Ids.reference(label1)), Index.keyOf(Ids.reference(label2)), Index.keyOf(Ids.reference(album)));
    assertThat(index.keys().apply(resource("plain"))).isEmpty();

    store.addIndex(index);
    store.put(bound);
    store.put(resource("unbound"));
    // Keys of a Reference and of the ID it points at agree, so the index joins on either.
    assertThat(names(store.byIndex("bound", Index.keyOf(label1)))).containsExactly("nina");
    assertThat(names(store.byIndex("bound", Index.keyOf(label2)))).containsExactly("nina");
    assertThat(names(store.byIndex("bound", Index.keyOf(album)))).containsExactly("nina");
  }

  @Test
  void keysOfAnIdAndOfAReferenceToItAgreeAndIgnoreVersionAndUid() {
    ID id = Ids.of(ARTIST, Tenancies.of("p", "ns"), "nina").toBuilder().setUid("u1").build();
    ID otherVersion = Ids.of(Types.of("demo", "v1", "Artist"), Tenancies.of("p", "ns"), "nina");

    assertThat(Index.keyOf(id)).isEqualTo("demo.Artist/p/ns/nina");
    assertThat(Index.keyOf(Ids.reference(id, "section"))).isEqualTo(Index.keyOf(id));
    assertThat(Index.keyOf(otherVersion)).isEqualTo(Index.keyOf(id));
    assertThat(Index.keyOf(Ids.of(ARTIST, Tenancies.of("p", "other"), "nina"))).isNotEqualTo(Index.keyOf(id));
  }

  @Test
  void indexKeyJoinsPartsWithSlashes() {
    assertThat(Index.key("a", "b", "c")).isEqualTo("a/b/c");
    assertThat(Index.key("label", 42, true)).isEqualTo("label/42/true");
    assertThat(Index.key("only")).isEqualTo("only");
    assertThat(Index.key()).isEmpty();
  }
  @Test
  void parentsReturnsEachResourceOnceEvenWhenSeveralOfItsKeysAreAncestors() {
    TypeStore store = new TypeStore();
    store.addIndex(Index.multi("paths", r -> List.of("a", "a/b")));
    store.put(Resource.newBuilder().setId(Ids.of(Types.of("demo", "v1", "Folder"), "r1")).build());

    List<Resource> parents = store.parents("paths", "a/b/c");

    assertThat(parents).extracting(r -> r.getId().getName()).containsExactly("r1");
  }

  @Test
  void parentsFollowPathSegmentsNotCharacters() {
    TypeStore store = new TypeStore();
    store.addIndex(Index.of("path", r -> r.getId().getName().replace('-', '/')));
    store.put(Resource.newBuilder().setId(Ids.of(Types.of("demo", "v1", "Folder"), "a-b")).build());

    assertThat(store.parents("path", "a/b/c")).hasSize(1);
    assertThat(store.parents("path", "a/bc")).as("a/b is no ancestor of a/bc").isEmpty();
  }
}
