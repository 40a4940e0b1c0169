package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.netty.util.ResourceLeakDetector;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.TypeInfo;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.Agent;
import io.setpoint.storage.raft.RaftBackend;
import io.setpoint.storage.raft.RaftConfig;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code setpoint agent}, run in-process. */
@Timeout(60)
class AgentCommandTest {
  @RegisterExtension final CliAgent agent = new CliAgent();

  @Test
  void withNeitherDevNorADataDirItRefusesWithAClearMessageAndExitsTwo() {
    CliRun run = CliRun.run("agent", "-port", "0");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).startsWith(
        "Error: give -data-dir DIR for a durable store, or -dev for an in-memory one: run 'setpoint agent -dev' to try Setpoint\n");
    assertThat(agent.messages()).isEmpty();
  }

  @Test
  void connectionLimitsComeFromTheirFlagsAndMustBePositive() throws Exception {
    CliRun zero = CliRun.run("agent", "-dev", "-port", "0", "-max-connections-per-client", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).startsWith("Error: -max-connections-per-client must be at least 1, was 0\n");

    agent.start("agent", "-dev", "-port", "0", "-max-connections", "30", "-max-connections-per-client", "3");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(agent.messages())
        .anySatisfy(m -> assertThat(m).startsWith("At most 30 client connections, 3 per client address")));
  }

  @Test
  void devServesTheDemoTypesUntilInterruptedThenStopsCleanly() throws Exception {
    int port = agent.start("agent", "-dev", "-port", "0", "-bind", "127.0.0.1");

    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      assertThat(client.types().getTypesList()).extracting(TypeInfo::getType)
          .contains(DemoTypes.ARTIST, DemoTypes.ALBUM, DemoTypes.RECORD_LABEL, DemoTypes.EXECUTIVE);

      agent.stop();

      assertThat(agent.run().code()).as(agent.run().toString()).isZero();
      assertThat(agent.messages()).anySatisfy(m -> assertThat(m).matches(
          "Setpoint agent stopped in [0-9.]+ s \\(controllers [0-9.]+ s, leadership hand-over [0-9.]+ s, "
              + "connections [0-9.]+ s, store [0-9.]+ s, I/O threads [0-9.]+ s\\)"));
      assertThatThrownBy(client::types).isInstanceOfSatisfying(SetpointException.class,
          e -> assertThat(e.code()).isEqualTo(Code.UNAVAILABLE));
    }
  }

  @Test
  void turnsNettysLeakDetectionOffUnlessTheJvmIsToldOtherwise() throws Exception {
    String[] dev = {"agent", "-dev", "-port", "0", "-bind", "127.0.0.1"};
    ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
    try {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
      agent.start(dev);
      assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.DISABLED);
      agent.stop();

      System.setProperty(AgentCommand.LEAK_DETECTION, "paranoid");
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
      agent.start(dev);
      assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    } finally {
      System.clearProperty(AgentCommand.LEAK_DETECTION);
      ResourceLeakDetector.setLevel(before);
    }
  }

  @Test
  void withoutApiTlsArmeriaIsToldNotToLoadBoringSslUnlessTheJvmIsToldOtherwise() throws Exception {
    String[] dev = {"agent", "-dev", "-port", "0", "-bind", "127.0.0.1"};
    String before = System.getProperty(AgentCommand.ARMERIA_OPENSSL);
    try {
      System.clearProperty(AgentCommand.ARMERIA_OPENSSL);
      agent.start(dev);
      assertThat(System.getProperty(AgentCommand.ARMERIA_OPENSSL)).isEqualTo("false");
      agent.stop();

      System.setProperty(AgentCommand.ARMERIA_OPENSSL, "true");
      agent.start(dev);
      assertThat(System.getProperty(AgentCommand.ARMERIA_OPENSSL)).isEqualTo("true");
    } finally {
      if (before == null) {
        System.clearProperty(AgentCommand.ARMERIA_OPENSSL);
      } else {
        System.setProperty(AgentCommand.ARMERIA_OPENSSL, before);
      }
    }
  }

  @Test
  void aMemberRestartedWithOnlyItsDataDirectoryListensWhereItDid(@TempDir Path dataDir) throws Exception {
    int apiPort = FreePorts.loopback();
    String raftPort = String.valueOf(FreePorts.loopback());
    int port = agent.start("agent", "-data-dir", dataDir.toString(), "-node", "n7", "-port", String.valueOf(apiPort),
        "-raft-port", raftPort, "-no-acls");
    assertThat(port).isEqualTo(apiPort);
    agent.stop();

    port = agent.start("agent", "-data-dir", dataDir.toString(), "-no-acls");
    assertThat(port).as("the recorded API port").isEqualTo(apiPort);
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      assertThat(client.raftPeers().getPeersList()).singleElement().satisfies(peer -> {
        assertThat(peer.getName()).isEqualTo("n7");
        assertThat(peer.getAddress()).isEqualTo("127.0.0.1:" + raftPort);
      });
    }
    agent.stop();

    CliRun moved = CliRun.run("agent", "-data-dir", dataDir.toString(), "-raft-port", String.valueOf(FreePorts.loopback()));
    assertThat(moved.code()).isEqualTo(2);
    assertThat(moved.err()).contains("node n7 has Raft port " + raftPort).contains("contradicts it");
    CliRun renamed = CliRun.run("agent", "-data-dir", dataDir.toString(), "-node", "n8");
    assertThat(renamed.code()).isEqualTo(2);
    assertThat(renamed.err()).contains("belongs to node n7");
  }

  @Test
  void aDurableAgentKeepsItsDataAndTokensAcrossARestartAndListsItsRaftPeer(@TempDir Path dataDir) throws Exception {
    String raftPort = String.valueOf(FreePorts.loopback());
    String[] args = {"agent", "-data-dir", dataDir.toString(), "-port", "0", "-raft-port", raftPort,
        "-demo-types", "-no-demo-controllers"};
    int port = agent.start(args);
    String token;
    Resource stored;
    try (SetpointClient anonymous = SetpointClient.connect("127.0.0.1:" + port)) {
      assertThatThrownBy(anonymous::types).as("ACLs are on outside -dev")
          .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.UNAUTHENTICATED));
      token = anonymous.bootstrapAcls().getSecret();
    }
    try (SetpointClient client = SetpointClient.builder().address("127.0.0.1:" + port).token(token).build()) {
      stored = client.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, "nina"))
          .setData(Any.pack(Artist.newBuilder().setName("Nina Simone").build()))
          .build());
    }
    agent.stop();
    assertThat(agent.run().code()).as(agent.run().toString()).isZero();

    port = agent.start(args);
    try (SetpointClient client = SetpointClient.builder().address("127.0.0.1:" + port).token(token).build()) {
      assertThat(client.read(Ids.of(DemoTypes.ARTIST, "nina"))).isEqualTo(stored);
      assertThat(client.raftPeers().getPeersList()).singleElement().satisfies(peer -> {
        assertThat(peer.getName()).isEqualTo("node1");
        assertThat(peer.getAddress()).isEqualTo("127.0.0.1:" + raftPort);
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> client.raftPeers().getPeers(0).getLeader());
    }

    CliRun peers = CliRun.run("operator", "raft", "list-peers", "-address", "127.0.0.1:" + port, "-token", token);
    assertThat(peers.code()).as(peers.toString()).isZero();
    assertThat(peers.out()).containsPattern("node1 +127\\.0\\.0\\.1:" + raftPort + " +leader");
  }

  @Test
  void historyMibBoundsTheHistoryByBytesSoOlderPageTokensAreCompacted() throws Exception {
    int port = agent.start("agent", "-dev", "-port", "0", "-no-demo-controllers", "-history-mib", "1");

    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      for (String name : new String[] {"a", "b"}) {
        client.write(artist(name, name));
      }
      ListRequest firstPage = ListRequest.newBuilder().setType(DemoTypes.ARTIST).setPageSize(1).build();
      String token = client.list(firstPage).getNextPageToken();
      String large = "x".repeat(300 << 10);
      for (int i = 0; i < 4; i++) {
        client.write(artist("large", i + large)); // 1.2 MB in all: more than the 1 MiB of history
      }

      assertThatThrownBy(() -> client.list(firstPage.toBuilder().setPageToken(token).build()))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.OUT_OF_RANGE);
            assertThat(e.getMessage()).contains("older than the retained history");
          });
      assertThat(client.read(Ids.of(DemoTypes.ARTIST, "a")).getData().unpack(Artist.class).getDescription())
          .as("live resources are never compacted").isEqualTo("a");
    }
  }

  @Test
  void snapshotEveryMakesADurableAgentSnapshotThatOften(@TempDir Path dataDir) throws Exception {
    int port = agent.start("agent", "-data-dir", dataDir.toString(), "-port", "0",
        "-raft-port", String.valueOf(FreePorts.loopback()), "-demo-types", "-no-demo-controllers", "-no-acls",
        "-snapshot-every", "4");
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      for (int i = 0; i < 12; i++) { // one at a time: a log entry each
        client.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "a" + i))
            .setData(Any.pack(Artist.newBuilder().setName("a" + i).build())).build());
      }
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      try (Stream<Path> files = Files.walk(dataDir)) {
        return files.anyMatch(f -> f.getParent().getFileName().toString().equals("sm")
            && f.getFileName().toString().matches("snapshot\\.\\d+_\\d+"));
      }
    });
  }

  @Test
  void snapshotEveryIsForADurableStoreAndMustBePositive() {
    CliRun dev = CliRun.run("agent", "-dev", "-snapshot-every", "100");
    CliRun zero = CliRun.run("agent", "-data-dir", "unused", "-snapshot-every", "0");

    assertThat(dev.code()).isEqualTo(2);
    assertThat(dev.err()).contains("-snapshot-every is for a durable store (-data-dir); -dev keeps no snapshots");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("-snapshot-every must be at least 1, was 0");
  }

  @Test
  void metricsAclNeedsAclsOn() {
    CliRun dev = CliRun.run("agent", "-dev", "-metrics-acl");

    assertThat(dev.code()).isEqualTo(2);
    assertThat(dev.err()).contains("-metrics-acl needs ACLs on (the default with -data-dir, or -dev -acls)");
  }

  @Test
  void aClientRateLimitMustBePositiveAndABurstNeedsOne() {
    CliRun zero = CliRun.run("agent", "-dev", "-client-rate-limit", "0");
    CliRun burstAlone = CliRun.run("agent", "-dev", "-client-rate-burst", "5");

    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("-client-rate-limit must be at least 1, was 0");
    assertThat(burstAlone.code()).isEqualTo(2);
    assertThat(burstAlone.err()).contains("-client-rate-burst goes with -client-rate-limit N");
  }

  @Test
  void historyMibMustBePositive() {
    CliRun run = CliRun.run("agent", "-dev", "-history-mib", "0");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-history-mib must be at least 1, was 0");
  }

  private static Resource artist(String name, String description) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).setDescription(description).build())).build();
  }

  @Test
  void aDurableAgentOnADamagedLogExitsOneWithOneLineNamingTheFileAndTheChecksum(@TempDir Path dataDir)
      throws Exception {
    String[] args = {"agent", "-data-dir", dataDir.toString(), "-port", "0", "-raft-port",
        String.valueOf(FreePorts.loopback()), "-no-acls", "-demo-types", "-no-demo-controllers"};
    int port = agent.start(args);
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      client.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, "nina"))
          .setData(Any.pack(Artist.newBuilder().setName("Nina Simone").build()))
          .build());
    }
    agent.stop();
    Path segment;
    try (Stream<Path> files = Files.walk(dataDir)) {
      segment = files.filter(f -> f.getFileName().toString().startsWith("log_")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(segment);
    bytes[bytes.length / 2] ^= 0x5a;
    Files.write(segment, bytes);

    CliRun run = CliRun.run(args);

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.err().lines()).as(run.toString()).singleElement().satisfies(line -> assertThat(line)
        .startsWith("Error: not starting on " + dataDir + ": the log segment " + segment + " is damaged at byte")
        .contains("checksum")
        .endsWith("Restore " + dataDir + " from a backup taken while the node was stopped."));
  }

  @Test
  void aDurableAgentWhoseSnapshotsAreGoneBehindAPurgedLogRefusesToStartNamingThem(@TempDir Path dataDir)
      throws Exception {
    int raftPort = FreePorts.loopback();
    // A snapshot every 16 entries and 1 KiB log segments, so that the log is purged behind them.
    RaftConfig config = RaftConfig.of("node1", dataDir, raftPort, Map.of("node1", "127.0.0.1:" + raftPort))
        .withTuning(RaftConfig.Tuning.DEFAULT.withSnapshots(16, 1024));
    try (RaftBackend node = RaftBackend.start(config)) {
      await().atMost(Duration.ofSeconds(20)).until(node::isLeader);
      for (int i = 0; i < 100; i++) {
        node.writeCas(artist("a" + i, "written before the snapshots went"));
      }
    }
    List<Path> snapshots;
    try (Stream<Path> files = Files.walk(dataDir)) {
      snapshots = files.filter(f -> f.getFileName().toString().startsWith("snapshot.")).toList();
    }
    assertThat(snapshots).as("snapshots were taken").isNotEmpty();
    for (Path snapshot : snapshots) {
      Files.delete(snapshot);
    }

    CliRun run = CliRun.run("agent", "-data-dir", dataDir.toString(), "-port", "0", "-raft-port",
        String.valueOf(raftPort), "-no-acls", "-demo-types", "-no-demo-controllers");

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.err().lines()).as(run.toString()).singleElement().satisfies(line -> assertThat(line)
        .startsWith("Error: not starting on " + dataDir)
        .contains("holds no snapshot file")
        .contains("serve less than was acknowledged")
        .contains("Restore " + dataDir + " from a backup"));
  }

  @Test
  void aclsCanBeTurnedOffOnlyOutsideDevAndOnOnlyInDev(@TempDir Path dataDir) {
    CliRun devNoAcls = CliRun.run("agent", "-dev", "-no-acls");
    CliRun durableAcls = CliRun.run("agent", "-data-dir", dataDir.toString(), "-acls");

    assertThat(devNoAcls.code()).isEqualTo(2);
    assertThat(devNoAcls.err()).contains("-dev has no ACLs already; -no-acls is for a durable agent");
    assertThat(durableAcls.code()).isEqualTo(2);
    assertThat(durableAcls.err()).contains("ACLs are on without -dev already; -acls is for -dev");
  }

  @Test
  void aDevAgentHasNoRaftPeersToList() {
    try (Agent running = Agent.builder().port(0).acls(false).start()) {
      CliRun run = CliRun.run("operator", "raft", "list-peers", "-address", "127.0.0.1:" + running.port());

      assertThat(run.code()).isEqualTo(1);
      assertThat(run.err()).contains("in-memory store (-dev), which has no Raft peers");
    }
  }

  @Test
  void aClusterThatDoesNotNameThisNodeIsAUsageError(@TempDir Path dataDir) {
    CliRun run = CliRun.run("agent", "-data-dir", dataDir.toString(), "-node", "n4",
        "-cluster", "n1=127.0.0.1:8501,n2=127.0.0.1:8511");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-cluster n1=127.0.0.1:8501,n2=127.0.0.1:8511 does not name this node (-node n4)");
  }

  @Test
  void raftAdvertiseIsForJoiningAndMustBeHostAndPort(@TempDir Path dataDir) {
    CliRun founder = CliRun.run("agent", "-data-dir", dataDir.toString(), "-raft-advertise", "127.0.0.1:9001");
    CliRun noPort = CliRun.run("agent", "-data-dir", dataDir.toString(), "-join", "127.0.0.1:8500",
        "-raft-advertise", "127.0.0.1");

    assertThat(founder.code()).isEqualTo(2);
    assertThat(founder.err()).contains("-raft-advertise is for -join; founders give their advertised addresses in -cluster");
    assertThat(noPort.code()).isEqualTo(2);
    assertThat(noPort.err()).contains("-raft-advertise 127.0.0.1: give HOST:PORT, the port within 1..65535");
  }


  @Test
  void aPortInUseIsReportedWithExitOne() {
    try (Agent running = Agent.builder().port(0).acls(false).types(DemoTypes::register).start()) {
      CliRun run = CliRun.run("agent", "-dev", "-port", String.valueOf(running.port()));

      assertThat(run.code()).isEqualTo(1);
      assertThat(run.err()).startsWith("Error: cannot listen on 127.0.0.1:" + running.port());
    }
  }
}
