package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.storage.BackupFile;
import io.setpoint.testkit.FreePorts;
import io.setpoint.testkit.GardenTypes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code setpoint snapshot save | inspect | restore}: a backup taken from a follower of a live
 * three-member cluster while writes go on is one consistent revision, and a data directory
 * restored from it starts an agent holding every resource exactly as saved, which grows to three
 * members with {@code agent -join}.
 */
class SnapshotCommandsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;
  private final List<CliRun> agents = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    ClusterArgs.stopAll(agents);
  }

  private static BackupFile.Contents read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return BackupFile.read(in);
    }
  }

  private static Resource artist(String name, String description) {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), name))
        .setData(Any.pack(Artist.newBuilder().setName(name).setDescription(description).build())).build();
  }

  /** {@code name} set to round {@code i}, over its stored version if it has one. */
  private static Resource upsert(SetpointClient client, String name, int i) {
    Resource next = artist(name, Integer.toString(i));
    try {
      return next.toBuilder().setVersion(client.readConsistent(next.getId()).getVersion()).build();
    } catch (SetpointException e) {
      return next;
    }
  }

  private static int round(List<Resource> resources, String name) throws Exception {
    Resource r = resources.stream().filter(x -> x.getId().getName().equals(name)).findFirst().orElseThrow();
    return Integer.parseInt(r.getData().unpack(Artist.class).getDescription());
  }

  @Test
  void aBackupOfALiveClusterRestoresIntoANewAgentWithEveryResourceAsItWasThenGrowsWithJoin() throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir.resolve("cluster"), 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      agents.add(CliRun.start(cluster.member(i, "-demo-types", "-no-demo-controllers")));
    }
    Path file = dir.resolve("backup.snap");
    try (SetpointClient source = SetpointClient.connect("127.0.0.1:" + api[0])) {
      // A type added at runtime and a resource of it, an owner with a child and a status, an ACL policy.
      await().atMost(WAIT).ignoreExceptions().until(() -> source.write(GardenTypes.definition(GardenTypes.files(false))) != null);
      await().atMost(WAIT).until(() -> ClusterArgs.serves(api[0], GardenTypes.PLANT));
      source.write(GardenTypes.plant("fern", "fern", 40));
      Resource artist = source.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "nina"))
          .setData(Any.pack(Artist.newBuilder().setName("Nina Simone").build())).build());
      source.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ALBUM, Tenancies.of("default", "default"), "pastel-blues"))
          .setOwner(artist.getId())
          .setData(Any.pack(Album.newBuilder().setName("Pastel Blues").build())).build());
      source.writeStatus(artist.getId(), "backup.test/status", Status.newBuilder()
          .addConditions(Condition.newBuilder().setType("Ready").setState(Condition.State.STATE_TRUE)).build());
      CliRun policy = CliRun.runWithStdin("""
          id: {type: acl.v1.Policy, name: artist-readers}
          data:
            rules:
              - {type: demo.v2.Artist, permissions: [read, list]}
          """, "resource", "apply", "-f", "-", "-address", "127.0.0.1:" + api[0]);
      assertThat(policy.code()).as(policy.toString()).isZero();

      // Writes go on, one after another, while a follower is asked for the backup: each round a
      // new artist, then pair-b and pair-a set to the round. A copy of one revision has pair-b one
      // round ahead of pair-a at most; a walk reading pair-a early and pair-b late would not.
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicReference<RuntimeException> writeFailed = new AtomicReference<>();
      Thread writer = Thread.ofVirtual().start(() -> {
        try {
          for (int i = 0; writing.get(); i++) {
            source.write(artist(String.format("w%05d", i), "w" + i));
            source.write(upsert(source, "pair-b", i));
            source.write(upsert(source, "pair-a", i));
          }
        } catch (RuntimeException e) {
          writeFailed.set(e);
        }
      });
      await().atMost(WAIT).until(() -> source.listAll(DemoTypes.ARTIST, Tenancies.of("default", "default")).size() > 20
          || writeFailed.get() != null);
      String follower = "127.0.0.1:" + api[2];
      await().atMost(WAIT).until(() -> ClusterArgs.serves(api[2], GardenTypes.PLANT));
      CliRun saved = CliRun.run("snapshot", "save", file.toString(), "-address", follower);
      writing.set(false);
      writer.join();
      assertThat(writeFailed.get()).as("the writer's failure").isNull();
      assertThat(saved.code()).as(saved.toString()).isZero();
      assertThat(saved.out()).startsWith("saved " + file + ": ").contains(" from c", "sha256 ");
    }

    BackupFile.Contents contents = read(file);
    List<Resource> all = contents.resources();
    // One revision: the writer's artists are w00000..wN without a gap, and nothing newer than the header.
    List<String> written = all.stream().map(r -> r.getId().getName()).filter(n -> n.matches("w\\d{5}")).toList();
    assertThat(written).isNotEmpty();
    assertThat(written).isEqualTo(
        java.util.stream.IntStream.range(0, written.size()).mapToObj(i -> String.format("w%05d", i)).toList());
    assertThat(all).allSatisfy(r -> assertThat(Long.parseLong(r.getVersion())).isLessThanOrEqualTo(contents.header().getRevision()));
    int pairA = round(all, "pair-a");
    int pairB = round(all, "pair-b");
    assertThat(pairB - pairA).as("pair-b is at round %d, pair-a at %d", pairB, pairA).isBetween(0, 1);

    CliRun inspected = CliRun.run("snapshot", "inspect", file.toString());
    assertThat(inspected.code()).as(inspected.toString()).isZero();
    assertThat(inspected.out()).contains("Revision:   " + contents.header().getRevision(), "(matches)",
        "acl.v1.Policy", "core.v1.TypeDefinition", "garden.v1.Plant", "demo.v2.Album");

    // Restored into a new data directory and started there, alone.
    Path restoredDir = dir.resolve("restored");
    int raftPort = FreePorts.loopback();
    int apiPort = FreePorts.loopback();
    CliRun restored = CliRun.run("snapshot", "restore", file.toString(), "-data-dir", restoredDir.toString(),
        "-node", "restored", "-raft-port", String.valueOf(raftPort), "-port", String.valueOf(apiPort));
    assertThat(restored.code()).as(restored.toString()).isZero();
    // Without controllers, so nothing writes to it before it is compared.
    agents.add(CliRun.start("agent", "-data-dir", restoredDir.toString(), "-demo-types", "-no-demo-controllers", "-no-acls"));
    await().atMost(WAIT).until(() -> ClusterArgs.serves(apiPort, GardenTypes.PLANT));
    // Every resource, served types and internal ones alike, as a backup of the restored agent shows it.
    Path again = dir.resolve("again.snap");
    CliRun savedAgain = CliRun.run("snapshot", "save", again.toString(), "-address", "127.0.0.1:" + apiPort);
    assertThat(savedAgain.code()).as(savedAgain.toString()).isZero();
    assertThat(read(again).resources()).isEqualTo(all);
    assertThat(read(again).header().getRevision()).isEqualTo(contents.header().getRevision());
    try (SetpointClient copy = SetpointClient.connect("127.0.0.1:" + apiPort)) {
      java.util.Set<io.setpoint.api.v1.Type> served = new java.util.HashSet<>();
      copy.types().getTypesList().forEach(t -> served.add(t.getType()));
      for (Resource saved : all) {
        if (served.contains(saved.getId().getType())) {
          assertThat(copy.readConsistent(saved.getId())).isEqualTo(saved);
        }
      }
      Map<String, Integer> perType = new TreeMap<>();
      for (Resource saved : all) {
        perType.merge(saved.getId().getType().getKind(), 1, Integer::sum);
      }
      assertThat(copy.listAll(DemoTypes.ARTIST, Tenancies.of("*", "*"))).hasSize(perType.get("Artist"));
      Resource nina = copy.readConsistent(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "nina"));
      List<Resource> ninasChildren = all.stream().filter(r -> r.getOwner().getUid().equals(nina.getId().getUid())).toList();
      assertThat(ninasChildren).isNotEmpty();
      assertThat(copy.listByOwner(nina.getId())).containsExactlyInAnyOrderElementsOf(ninasChildren);
      assertThat(nina.getStatusMap()).containsKey("backup.test/status");
      Resource next = copy.write(GardenTypes.plant("moss", "moss", 2));
      assertThat(Long.parseLong(next.getVersion())).as("revisions go on from the snapshot's")
          .isGreaterThan(contents.header().getRevision());

      // Grown to three with -join: each new member is caught up and serves every resource as saved.
      for (String joiner : List.of("restored-j1", "restored-j2")) {
        int joinerApi = FreePorts.loopback();
        agents.add(CliRun.start("agent", "-data-dir", dir.resolve(joiner).toString(), "-node", joiner,
            "-raft-port", String.valueOf(FreePorts.loopback()), "-port", String.valueOf(joinerApi),
            "-join", "127.0.0.1:" + apiPort, "-demo-types", "-no-demo-controllers", "-no-acls"));
        CliRun joining = agents.get(agents.size() - 1);
        await().atMost(WAIT).failFast("the joining agent ended: " + joining, () -> joining.code() != null)
            .until(() -> ClusterArgs.serves(joinerApi, GardenTypes.PLANT));
        try (SetpointClient member = SetpointClient.connect("127.0.0.1:" + joinerApi)) {
          for (Resource saved : all) {
            if (served.contains(saved.getId().getType())) {
              assertThat(member.readConsistent(saved.getId())).as("on %s", joiner).isEqualTo(saved);
            }
          }
          assertThat(member.readConsistent(next.getId())).isEqualTo(next);
        }
      }
      assertThat(copy.raftPeers().getPeersList()).extracting(io.setpoint.api.operator.v1.Peer::getName)
          .containsExactlyInAnyOrder("restored", "restored-j1", "restored-j2");
    }
  }

  @Test
  void aDamagedFileIsRefusedByInspectAndRestoreAndSaveDoesNotReplaceAFileUnasked() throws Exception {
    Path file = Files.write(dir.resolve("bad.snap"), "SETPOINT-SNAPSHOT\nnonsense".getBytes());
    CliRun inspect = CliRun.run("snapshot", "inspect", file.toString());
    CliRun restore = CliRun.run("snapshot", "restore", file.toString(), "-data-dir", dir.resolve("r").toString());
    Path other = Files.write(dir.resolve("other.txt"), "hello".getBytes());
    CliRun notOne = CliRun.run("snapshot", "inspect", other.toString());
    CliRun save = CliRun.run("snapshot", "save", other.toString(), "-address", "127.0.0.1:1");

    assertThat(inspect.code()).isEqualTo(Main.FAILED);
    assertThat(inspect.err()).startsWith("Error: " + file + ": the file");
    assertThat(restore.code()).isEqualTo(Main.FAILED);
    assertThat(Files.exists(dir.resolve("r"))).as("nothing restored from a damaged file").isFalse();
    assertThat(notOne.err()).isEqualTo(
        "Error: " + other + ": not a Setpoint snapshot file (it does not start with SETPOINT-SNAPSHOT)\n");
    assertThat(save.err()).isEqualTo("Error: " + other + " exists; give -force to replace it\n");
    assertThat(Files.readString(other)).isEqualTo("hello");
  }
}
