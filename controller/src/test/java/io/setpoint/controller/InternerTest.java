package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.StringValue;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import org.junit.jupiter.api.Test;

class InternerTest {
  private final Interner interner = new Interner();

  /** A resource as a watch would decode it: every part a fresh object. */
  private static Resource decoded(String name) throws Exception {
    Resource r = Resource.newBuilder()
        .setId(ID.newBuilder().setUid("01J9ZB0000000000000000000" + name.length())
            .setName(name).setType(Types.of("demo", "v2", "Artist")).setTenancy(Tenancies.of("default", "default")))
        .setVersion("42")
        .setGeneration("01J9ZB000000000000000GENER")
        .setOwner(ID.newBuilder().setUid("01J9ZB00000000000000000OWN").setName("owner")
            .setType(Types.of("demo", "v1", "RecordLabel")).setTenancy(Tenancies.partition("default")))
        .putMetadata("finalizers", "demo.setpoint.io/cleanup")
        .putStatus("demo", Status.newBuilder().setObservedGeneration("g").build())
        .setData(Any.pack(StringValue.of(name)))
        .build();
    return Resource.parseFrom(r.toByteArray());
  }

  @Test
  void decodedResourcesShareTheirTypeTenancyAndTypeUrlAndKeepEveryField() throws Exception {
    Resource a = decoded("a");
    Resource b = decoded("b");

    Resource internedA = interner.intern(a);
    Resource internedB = interner.intern(b);

    assertThat(internedA).isEqualTo(a);
    assertThat(internedB).isEqualTo(b);
    assertThat(internedB.getId().getType()).isSameAs(internedA.getId().getType());
    assertThat(internedB.getId().getTenancy()).isSameAs(internedA.getId().getTenancy());
    assertThat(internedB.getData().getTypeUrl()).isSameAs(internedA.getData().getTypeUrl());
    assertThat(internedB.getData().getValue()).isSameAs(b.getData().getValue());
  }

  @Test
  void aResourceWhosePartsAreAlreadySharedIsKeptAsIs() throws Exception {
    Resource first = interner.intern(decoded("a"));
    Resource again = Resource.newBuilder(first).setVersion("43").build();

    assertThat(interner.intern(again)).isSameAs(again);
  }

  @Test
  void aResourceWithoutDataStaysWithoutData() throws Exception {
    Resource noData = Resource.parseFrom(decoded("a").toBuilder().clearData().build().toByteArray());
    interner.intern(decoded("b"));

    Resource interned = interner.intern(noData);

    assertThat(interned.hasData()).isFalse();
    assertThat(interned).isEqualTo(noData);
  }
}
