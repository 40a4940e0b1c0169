package io.setpoint.controller.predicate;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.cache.ResourceEvent.Kind;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class PredicatesTest {
  private static final Resource BASE = Resource.newBuilder()
      .setId(Ids.of(Types.of("demo", "v2", "Artist"), "nina"))
      .setVersion("10")
      .setGeneration("G1")
      .putMetadata("team", "jazz")
      .putStatus("ctl", Status.newBuilder().setObservedGeneration("G1")
          .addConditions(Condition.newBuilder().setType("Accepted")).build())
      .build();

  private static ResourceEvent create(Resource r) {
    return new ResourceEvent(Kind.UPSERT, null, r, 1);
  }

  private static ResourceEvent update(Resource before, Resource after) {
    return new ResourceEvent(Kind.UPSERT, before, after, 2);
  }

  private static ResourceEvent delete(Resource last) {
    return new ResourceEvent(Kind.DELETE, last, last, 3);
  }

  private static Resource newGeneration() {
    return BASE.toBuilder().setVersion("11").setGeneration("G2").build();
  }

  private static Resource newMetadata() {
    return BASE.toBuilder().setVersion("11").putMetadata("team", "soul").build();
  }

  private static Resource newStatus() {
    return BASE.toBuilder().setVersion("11").putStatus("ctl", Status.newBuilder()
        .setObservedGeneration("G1").addConditions(Condition.newBuilder().setType("Ready")).build()).build();
  }

  private static Resource versionOnly() {
    return BASE.toBuilder().setVersion("11").build();
  }

  @Test
  void changeDetectorsPassCreatesAndDeletes() {
    for (Predicate<ResourceEvent> p : new Predicate[] {
        Predicates.generationChanged(), Predicates.metadataChanged(), Predicates.statusChanged()}) {
      assertThat(p.test(create(BASE))).isTrue();
      assertThat(p.test(delete(BASE))).isTrue();
      // A delete the cache had no previous state for still passes.
      assertThat(p.test(new ResourceEvent(Kind.DELETE, null, BASE, 3))).isTrue();
    }
  }

  @Test
  void generationChangedFiltersUpdatesByGeneration() {
    Predicate<ResourceEvent> p = Predicates.generationChanged();
    assertThat(p.test(update(BASE, newGeneration()))).isTrue();
    assertThat(p.test(update(BASE, newMetadata()))).isFalse();
    assertThat(p.test(update(BASE, newStatus()))).isFalse();
    assertThat(p.test(update(BASE, versionOnly()))).isFalse();
  }

  @Test
  void metadataChangedFiltersUpdatesByMetadata() {
    Predicate<ResourceEvent> p = Predicates.metadataChanged();
    assertThat(p.test(update(BASE, newMetadata()))).isTrue();
    assertThat(p.test(update(BASE, BASE.toBuilder().putMetadata("extra", "x").build()))).isTrue();
    assertThat(p.test(update(BASE, BASE.toBuilder().clearMetadata().build()))).isTrue();
    assertThat(p.test(update(BASE, newGeneration()))).isFalse();
    assertThat(p.test(update(BASE, newStatus()))).isFalse();
  }

  @Test
  void statusChangedFiltersUpdatesByStatus() {
    Predicate<ResourceEvent> p = Predicates.statusChanged();
    assertThat(p.test(update(BASE, newStatus()))).isTrue();
    assertThat(p.test(update(BASE, BASE.toBuilder().putStatus("other", Status.getDefaultInstance()).build())))
        .isTrue();
    assertThat(p.test(update(BASE, newGeneration()))).isFalse();
    assertThat(p.test(update(BASE, newMetadata()))).isFalse();
  }

  @Test
  void metadataSelectorMatchesWhenTheOldOrTheNewStateMatches() {
    Predicate<ResourceEvent> jazz = Predicates.metadataSelector(Map.of("team", "jazz"));
    Resource soul = newMetadata();
    Resource none = BASE.toBuilder().clearMetadata().build();

    assertThat(jazz.test(create(BASE))).isTrue();
    assertThat(jazz.test(create(soul))).isFalse();
    assertThat(jazz.test(update(BASE, soul))).as("leaving the selection").isTrue();
    assertThat(jazz.test(update(soul, BASE))).as("entering the selection").isTrue();
    assertThat(jazz.test(update(soul, none))).as("never selected").isFalse();
    assertThat(jazz.test(delete(BASE))).isTrue();
    assertThat(jazz.test(delete(soul))).isFalse();
  }

  @Test
  void metadataSelectorNeedsEveryTerm() {
    Resource both = BASE.toBuilder().putMetadata("tier", "gold").build();
    Predicate<ResourceEvent> p = Predicates.metadataSelector(Map.of("team", "jazz", "tier", "gold"));

    assertThat(p.test(create(both))).isTrue();
    assertThat(p.test(create(BASE))).isFalse();
    assertThat(p.test(create(both.toBuilder().putMetadata("tier", "silver").build()))).isFalse();
    assertThat(Predicates.metadataSelector(Map.of()).test(create(BASE.toBuilder().clearMetadata().build())))
        .as("the empty selector selects everything").isTrue();
  }

  @Test
  void metadataSelectorCopiesItsTerms() {
    var terms = new java.util.HashMap<String, String>(Map.of("team", "jazz"));
    Predicate<ResourceEvent> p = Predicates.metadataSelector(terms);
    terms.put("team", "soul");

    assertThat(p.test(create(BASE))).isTrue();
  }

  @Test
  void anyAcceptsEverything() {
    Predicate<ResourceEvent> p = Predicates.any();
    assertThat(p.test(create(BASE))).isTrue();
    assertThat(p.test(update(BASE, versionOnly()))).isTrue();
    assertThat(p.test(update(BASE, BASE))).isTrue();
    assertThat(p.test(delete(BASE))).isTrue();
  }

  @Test
  void resourceEventKnowsDeletes() {
    assertThat(delete(BASE).isDelete()).isTrue();
    assertThat(create(BASE).isDelete()).isFalse();
  }
}
