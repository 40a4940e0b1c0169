package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.resource.CoreTypes;
import io.setpoint.storage.Backend;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.memory.MemoryBackend;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A three-level cascade (a label owns a label that owns a label with a finalizer) interrupted by a
 * crash of the agent, and resumed by the next agent over the same store; meanwhile the cascade
 * waits for the finalizer with a backoff instead of reconciling in a busy loop.
 */
class CascadeResumeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String HOLD = "test.setpoint.io/hold";

  /** The store outlives the agent that closes it, as a durable store outlives a crash. */
  private static final class Surviving extends ForwardingBackend {
    Surviving(Backend store) {
      super(store);
    }

    @Override
    public void close() {}
  }

  @Test
  void aCascadeWaitingOnAFinalizerBacksOffAndResumesAfterACrash() throws Exception {
    MemoryBackend store = new MemoryBackend();
    ID top;
    ID middle;
    ID bottom;
    try (Agent first = agent(store); SetpointClient client = client(first)) {
      top = label(client, "top", null, false);
      middle = label(client, "middle", top, false);
      bottom = label(client, "bottom", middle, true);

      client.delete(top);
      // The middle label is deleted and leaves a tombstone; the bottom one waits for its finalizer.
      await().atMost(WAIT).until(() -> client.findConsistent(middle).isEmpty()
          && client.findConsistent(bottom).map(Finalizers::isMarkedForDeletion).orElse(false));
      await().atMost(WAIT).until(() -> CascadeWaits.of(first) >= 4);
      assertThat(CascadeWaits.of(first)).as("reconciles of a waiting cascade: it backs off (10, 20, 40 ms ...)")
          .isLessThan(20);
      assertThat(client.listAll(CoreTypes.TOMBSTONE, Tenancies.CLUSTER)).isNotEmpty();
    } // the agent goes away in the middle of the cascade

    try (Agent second = agent(store); SetpointClient client = client(second)) {
      Resource waiting = client.readConsistent(bottom);
      client.write(Finalizers.remove(waiting, HOLD));

      await().atMost(WAIT).until(() -> client.findConsistent(bottom).isEmpty()
          && client.listAll(CoreTypes.TOMBSTONE, Tenancies.CLUSTER).isEmpty());
      assertThat(client.findConsistent(top)).isEmpty();
      assertThat(client.findConsistent(middle)).isEmpty();
    } finally {
      store.close();
    }
  }

  private static Agent agent(MemoryBackend store) {
    return Agent.builder().port(0).acls(false).types(DemoTypes::register).backend(new Surviving(store)).start();
  }

  private static SetpointClient client(Agent agent) {
    return SetpointClient.connect("127.0.0.1:" + agent.port());
  }

  private static ID label(SetpointClient client, String name, ID owner, boolean held) {
    Resource.Builder label = Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build()));
    Optional.ofNullable(owner).ifPresent(label::setOwner);
    Resource resource = held ? Finalizers.add(label.build(), HOLD) : label.build();
    return client.write(resource).getId();
  }
}
