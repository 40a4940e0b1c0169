package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Tenancies;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.LoopRunner;
import io.setpoint.controller.Manager;
import io.setpoint.controller.loop.Locker;
import io.setpoint.controller.loop.Loop;
import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.loops.LabelMirrorLoop;
import io.setpoint.demo.loops.LabelMirrorLoop.Entry;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.server.AclTypes;
import io.setpoint.server.Agent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mirror example (demo/.../loops/LabelMirrorLoop): catalogue files become {@code
 * demo.v1.RecordLabel} resources marked {@code mirrored-by}, follow their files, and go when the
 * files go, including files removed while no loop ran. Run three ways: registered on the agent's
 * running manager (in-process client, real-time watch), in a plain {@link LoopRunner} over gRPC
 * (lists only, driven by {@code relist()}), and with ACLs on and a narrow token.
 */
class LabelMirrorLoopTest {
  private static final String PARTITION = Tenancies.DEFAULT;
  /** Far longer than any wait: what happens in time is due to the watch, a relist or the start. */
  private static final Duration RESYNC = Duration.ofMinutes(10);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register).controllers(DemoControllers::register))
      .timeout(Duration.ofSeconds(20))
      .build();

  @TempDir Path catalogue;

  private static ID id(String key) {
    return LabelMirrorLoop.id(PARTITION, key);
  }

  private void entry(String key, String name, String description) throws Exception {
    // Written aside and moved in, so the loop never reads half a file.
    Path tmp = Files.createTempFile(catalogue, key, ".tmp");
    Files.writeString(tmp, "name=" + name + "\ndescription=" + description + "\n");
    Files.move(tmp, catalogue.resolve(key + LabelMirrorLoop.SUFFIX), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static RecordLabel label(Resource r) {
    try {
      return r.getData().unpack(RecordLabel.class);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private static boolean mirrors(Resource r, String name, String description) {
    return label(r).getName().equals(name) && label(r).getDescription().equals(description)
        && LabelMirrorLoop.NAME.equals(r.getMetadataMap().get(LabelMirrorLoop.MIRRORED_BY));
  }

  private static Resource labelResource(String key, String name, Map<String, String> metadata) {
    return Resource.newBuilder().setId(id(key)).putAllMetadata(metadata)
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build())).build();
  }

  /** A locker that records that the engine closed it, which it does last when the loop stops. */
  private static final class ClosingLocker implements Locker<String> {
    private final Locker<String> inMemory = Locker.inMemory();
    private final CountDownLatch closed = new CountDownLatch(1);

    @Override
    public boolean tryAcquire(String key) throws Exception {
      return inMemory.tryAcquire(key);
    }

    @Override
    public void release(String key, boolean gone) throws Exception {
      inMemory.release(key, gone);
    }

    @Override
    public void close() {
      inMemory.close();
      closed.countDown();
    }
  }

  private static Loop<String, Entry> withLocker(Loop<String, Entry> l, Locker<String> locker) {
    return new Loop<>(l.name(), l.listerWatcher(), l.store(), l.handler(), locker, l.resync(),
        l.concurrency(), l.backoffBase(), l.backoffMax(), l.rateLimit(), l.maxRetries(), l.handleTimeout());
  }

  @Test
  void registeredOnTheAgentsRunningManagerItMirrorsCreatesUpdatesAndDeletesThenStopsWithTheAgent()
      throws Exception {
    SetpointClient client = setpoint.client();
    // Before the loop starts: an entry; a label it mirrored once whose entry was removed while it
    // was down; a hand-made label that an entry of the same name must not take over; and a label
    // another mirror marked.
    entry("motown", "Motown Records", "Detroit, 1959");
    client.write(labelResource("orphan", "Orphaned Label", Map.of(LabelMirrorLoop.MIRRORED_BY, LabelMirrorLoop.NAME)));
    Resource handMade = client.write(labelResource("hand-made", "Hand Made", Map.of()));
    entry("hand-made", "Mirrored Over", "must not happen");
    Resource others = client.write(labelResource("others", "Someone Else's", Map.of(LabelMirrorLoop.MIRRORED_BY, "another-mirror")));

    Manager manager = setpoint.agent().manager();
    ClosingLocker locker = new ClosingLocker();
    // The manager already runs (the agent started it): registering starts the loop at once.
    manager.register(withLocker(
        LabelMirrorLoop.loop(catalogue, setpoint.agent().client(), true, RESYNC), locker));

    Resource motown = setpoint.awaitResource(id("motown"), r -> mirrors(r, "Motown Records", "Detroit, 1959"));
    assertThat(motown.getMetadataMap()).containsEntry(LabelMirrorLoop.MIRRORED_FROM, "motown.properties");
    setpoint.awaitDeleted(id("orphan"));
    assertThat(manager.loops()).containsEntry(LabelMirrorLoop.NAME, true);

    // Changes reach the resources through the watch: the next list is ten minutes away.
    entry("stax", "Stax Records", "Memphis, 1957");
    setpoint.awaitResource(id("stax"), r -> mirrors(r, "Stax Records", "Memphis, 1957"));

    entry("motown", "Motown Records", "Detroit, then Los Angeles");
    Resource updated = setpoint.awaitResource(id("motown"), r -> mirrors(r, "Motown Records", "Detroit, then Los Angeles"));
    assertThat(updated.getId().getUid()).isEqualTo(motown.getId().getUid());
    assertThat(updated.getGeneration()).isNotEqualTo(motown.getGeneration());

    Files.delete(catalogue.resolve("motown.properties"));
    setpoint.awaitDeleted(id("motown"));

    // What the loop did not mark, it left alone (the versions move: the demo controller writes
    // the labels' statuses, so compare what a write would change).
    for (Resource before : java.util.List.of(handMade, others)) {
      Resource now = client.readConsistent(before.getId());
      assertThat(now.getGeneration()).isEqualTo(before.getGeneration());
      assertThat(label(now)).isEqualTo(label(before));
      assertThat(now.getMetadataMap()).isEqualTo(before.getMetadataMap());
    }
    assertThat(client.readConsistent(id("stax")).getMetadataMap())
        .containsEntry(LabelMirrorLoop.MIRRORED_BY, LabelMirrorLoop.NAME);

    // Closing the agent stops the loop: the engine closed its locker, last, and it no longer runs.
    setpoint.agent().close();
    assertThat(locker.closed.getCount()).isZero();
    assertThat(manager.loops()).containsEntry(LabelMirrorLoop.NAME, false);
  }

  @Test
  void inAPlainLoopRunnerOverGrpcListsAloneKeepTheMirrorRightAcrossRestarts() throws Exception {
    SetpointClient client = setpoint.client();
    entry("motown", "Motown Records", "Detroit, 1959");
    entry("stax", "Stax Records", "Memphis, 1957");

    try (LoopRunner running = LoopRunner.start(LabelMirrorLoop.loop(catalogue, client, false, RESYNC))) {
      setpoint.awaitResource(id("motown"), r -> mirrors(r, "Motown Records", "Detroit, 1959"));
      setpoint.awaitResource(id("stax"), r -> mirrors(r, "Stax Records", "Memphis, 1957"));

      entry("motown", "Motown", "renamed");
      running.relist();
      setpoint.awaitResource(id("motown"), r -> mirrors(r, "Motown", "renamed"));

      // An edit made on the Setpoint side is drift: the next list puts the entry back.
      Resource stax = client.readConsistent(id("stax"));
      client.write(stax.toBuilder().clearStatus()
          .setData(Any.pack(label(stax).toBuilder().setDescription("edited by hand").build())).build());
      running.relist();
      setpoint.awaitResource(id("stax"), r -> mirrors(r, "Stax Records", "Memphis, 1957"));

      Files.delete(catalogue.resolve("stax.properties"));
      running.relist(); // "stax" is absent from this list
      setpoint.awaitDeleted(id("stax"));
    }

    // Removed while no loop ran: only the listing of the resource side can find it.
    Files.delete(catalogue.resolve("motown.properties"));
    try (LoopRunner restarted = LoopRunner.start(LabelMirrorLoop.loop(catalogue, client, false, RESYNC))) {
      setpoint.awaitDeleted(id("motown"));
    }
  }

  @Test
  void withAclsOnItNeedsOnlyReadWriteAndListOnRecordLabels() throws Exception {
    try (Agent agent = Agent.builder().port(0).types(DemoTypes::register).start();
        SetpointClient anonymous = SetpointClient.connect("127.0.0.1:" + agent.port());
        SetpointClient admin = SetpointClient.builder().address("127.0.0.1:" + agent.port())
            .token(anonymous.bootstrapAcls().getSecret()).build()) {
      admin.write(Resource.newBuilder().setId(io.setpoint.api.Ids.of(AclTypes.POLICY, "label-mirror"))
          .setData(Any.pack(Policy.newBuilder()
              .addRules(Rule.newBuilder().setType("demo.v1.RecordLabel")
                  .addPermissions("read").addPermissions("write").addPermissions("list"))
              .build()))
          .build());
      String token = admin.createToken(CreateTokenRequest.newBuilder().addPolicies("label-mirror").build()).getSecret();
      entry("motown", "Motown Records", "Detroit, 1959");

      try (SetpointClient mirror = SetpointClient.builder().address("127.0.0.1:" + agent.port()).token(token).build();
          LoopRunner running = LoopRunner.start(LabelMirrorLoop.loop(catalogue, mirror, false, RESYNC))) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
            admin.listAll(DemoTypes.RECORD_LABEL, Tenancies.partition(PARTITION)).stream()
                .anyMatch(r -> mirrors(r, "Motown Records", "Detroit, 1959")));

        Files.delete(catalogue.resolve("motown.properties"));
        running.relist();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
            admin.listAll(DemoTypes.RECORD_LABEL, Tenancies.partition(PARTITION)).isEmpty());
      }
    }
  }
}
