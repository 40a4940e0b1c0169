package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.f4b6a3.ulid.Ulid;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.core.v1.Tombstone;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.resource.CoreTypes;
import io.setpoint.storage.memory.MemoryBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A delete leaves the owner's tombstone first and deletes the owner next, so the cascade can see a
 * tombstone while its owner is still there. It waits for the delete then, and takes it for failed
 * only once {@link Cascade#OWNER_DELETE_GRACE} has passed.
 */
class CascadeOwnerDeleteTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final MemoryBackend store = new MemoryBackend();
  /** Moves the agent's date; the agent's timers run on their own. */
  private final ManualTicker time = new ManualTicker();
  private final Clock clock = time.clock();

  @Test
  void aTombstoneSeenBeforeItsOwnersDeleteWaitsForItAndThenCascades() throws Exception {
    try (Agent agent = agent(); SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      ID owner = label(client, "owner", null);
      ID owned = label(client, "owned", owner);
      ID tombstone = tombstone(owner);

      await().atMost(WAIT).until(() -> CascadeWaits.of(agent) >= 3);
      assertThat(client.findConsistent(tombstone)).as("the owner is still there: the tombstone waits").isPresent();
      assertThat(client.findConsistent(owned)).isPresent();

      store.deleteCas(owner, ""); // the delete that wrote the tombstone gets there
      await().atMost(WAIT).until(() -> client.findConsistent(owned).isEmpty() && client.findConsistent(tombstone).isEmpty());
    }
  }

  @Test
  void anOwnerStillThereAfterTheGraceKeepsWhatItOwnsAndTheTombstoneGoes() throws Exception {
    try (Agent agent = agent(); SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      ID owner = label(client, "owner", null);
      ID owned = label(client, "owned", owner);
      ID tombstone = tombstone(owner);
      await().atMost(WAIT).until(() -> CascadeWaits.of(agent) >= 1);
      assertThat(client.findConsistent(tombstone)).isPresent();

      time.advance(Cascade.OWNER_DELETE_GRACE);

      await().atMost(WAIT).until(() -> client.findConsistent(tombstone).isEmpty());
      assertThat(client.findConsistent(owner)).isPresent();
      assertThat(client.findConsistent(owned)).isPresent();
    }
  }

  private Agent agent() {
    return Agent.builder().port(0).acls(false).clock(clock).types(DemoTypes::register).backend(store).start();
  }

  /** The tombstone a delete of {@code owner} writes before it deletes the owner, made at the clock's time. */
  private ID tombstone(ID owner) {
    Resource written = store.writeCas(Resource.newBuilder()
        .setId(ID.newBuilder()
            .setType(CoreTypes.TOMBSTONE)
            .setName(owner.getUid().toLowerCase(Locale.ROOT))
            .setUid(new Ulid(clock.millis(), randomBytes()).toString()))
        .setData(Any.pack(Tombstone.newBuilder().setOwner(owner).build()))
        .build());
    return written.getId();
  }

  private static byte[] randomBytes() {
    byte[] random = new byte[10];
    new Random().nextBytes(random);
    return random;
  }

  private static ID label(SetpointClient client, String name, ID owner) {
    Resource.Builder label = Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build()));
    if (owner != null) {
      label.setOwner(owner);
    }
    return client.write(label.build()).getId();
  }

}
