package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Tools;
import io.setpoint.controller.Tools.Outcome;
import io.setpoint.controller.Tools.Outcome.Operation;
import io.setpoint.controller.cache.Cache;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;

/**
 * {@link Tools#createOrUpdate} and {@link TestResource} against a real agent: creates, updates,
 * leaves alone, and never overwrites what a concurrent writer stored.
 */
class CreateOrUpdateTest {
  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register))
      .build();

  /** Tools whose only working part is the client, all that createOrUpdate uses. */
  private record ClientTools(SetpointClient client) implements Tools {
    @Override
    public Cache cache() {
      throw new UnsupportedOperationException("cache");
    }

    @Override
    public Logger logger() {
      throw new UnsupportedOperationException("logger");
    }

    @Override
    public EventRecorder events() {
      throw new UnsupportedOperationException("events");
    }

    @Override
    public Clock clock() {
      throw new UnsupportedOperationException("clock");
    }
  }

  private static Any artist(String name) {
    return Any.pack(Artist.newBuilder().setName(name).setGenre(Genre.GENRE_JAZZ).build());
  }

  @Test
  void createsThenUpdatesThenLeavesAnUnchangedResourceAlone() {
    Tools tools = new ClientTools(setpoint.client());
    ID id = TestResource.of(DemoTypes.ARTIST, "miles").namespace("jazz").id();

    Outcome created = tools.createOrUpdate(id, r -> r.setData(artist("Miles")));
    assertThat(created.operation()).isEqualTo(Operation.CREATED);
    Outcome same = tools.createOrUpdate(id, r -> r.setData(artist("Miles")));
    assertThat(same.operation()).isEqualTo(Operation.UNCHANGED);
    assertThat(same.resource().getVersion()).isEqualTo(created.resource().getVersion());
    Outcome updated = tools.createOrUpdate(id, r -> r.setData(artist("Miles Davis")).putMetadata("team", "a"));
    assertThat(updated.operation()).isEqualTo(Operation.UPDATED);
    assertThat(updated.resource().getId().getUid()).isEqualTo(created.resource().getId().getUid());
    assertThat(updated.resource().getMetadataMap()).containsEntry("team", "a");
  }

  @Test
  void aConcurrentCreatorIsDetectedAndItsResourceUpdatedNotOverwritten() {
    SetpointClient client = setpoint.client();
    TestResource rival = TestResource.of(DemoTypes.ARTIST, "coltrane").namespace("jazz")
        .data(Artist.newBuilder().setName("Rival").build()).metadata("rival", "kept");
    AtomicInteger calls = new AtomicInteger();

    Outcome out = new ClientTools(client).createOrUpdate(rival.id(), r -> {
      if (calls.incrementAndGet() == 1) {
        // Between this helper's read (nothing there) and its create, someone else creates it.
        rival.createIn(client);
      }
      r.setData(artist("John Coltrane"));
    });

    assertThat(calls).hasValue(2);
    assertThat(out.operation()).isEqualTo(Operation.UPDATED);
    Resource stored = client.readConsistent(rival.id());
    assertThat(stored).isEqualTo(out.resource());
    assertThat(stored.getMetadataMap()).as("the rival's metadata survives").containsEntry("rival", "kept");
  }

  @Test
  void testResourceBuildsTypeNameTenancyDataMetadataFinalizersAndOwner() throws Exception {
    SetpointClient client = setpoint.client();
    // snippet:start test-resource
    Resource owner = TestResource.of(DemoTypes.ARTIST, "miles").namespace("jazz")
        .data(Artist.newBuilder().setName("Miles").build()).createIn(client);

    Resource album = TestResource.of(DemoTypes.ALBUM, "kind-of-blue")
        .tenancy(Tenancies.of("default", "jazz"))
        .data(Album.newBuilder().setName("Kind of Blue").build())
        .metadata("year", "1959")
        .finalizers("a.example/keep")
        .owner(owner)
        .createIn(client);
    // snippet:end test-resource

    assertThat(album.getId().getName()).isEqualTo("kind-of-blue");
    assertThat(album.getId().getTenancy()).isEqualTo(Tenancies.of("default", "jazz"));
    assertThat(album.getData().unpack(Album.class).getName()).isEqualTo("Kind of Blue");
    assertThat(album.getMetadataMap()).containsEntry("year", "1959").containsEntry("finalizers", "a.example/keep");
    assertThat(album.getOwner()).isEqualTo(owner.getId());
    assertThatThrownBy(() -> TestResource.of(DemoTypes.ARTIST, "miles").namespace("jazz")
            .data(Artist.newBuilder().setName("Again").build()).createIn(client))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.ALREADY_EXISTS));
  }
}
