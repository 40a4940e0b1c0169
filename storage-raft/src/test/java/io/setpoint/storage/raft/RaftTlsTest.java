package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.tls.TlsFiles;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.FreePorts;
import io.setpoint.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Raft peers over mutual TLS: a cluster forms and replicates; a peer the CA did not sign stays out. */
class RaftTlsTest {
  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  /**
   * Short elections and a short request timeout, so the refused member gives up quickly. Members
   * that should work keep the usual 10 s: a follower may take a few seconds to hear from a new
   * leader over fresh TLS connections on a busy machine.
   */
  private static final RaftConfig.Tuning REFUSED_QUICKLY =
      TestCluster.FAST.withRequestTimeout(Duration.ofSeconds(3));

  @TempDir Path dir;
  private final List<RaftBackend> members = new ArrayList<>();

  @AfterEach
  void stop() {
    members.parallelStream().forEach(RaftBackend::close);
  }

  @Test
  void threeMembersWithCertificatesFromTheCaFormAClusterAndReplicate() {
    TestCertificates ca = TestCertificates.create(dir.resolve("pki"));
    List<RaftBackend> all = start(List.of(ca, ca, ca));

    RaftBackend leader = awaitLeader(all);
    Resource written = leader.writeCas(resource(id("over-tls")));
    for (RaftBackend member : all) {
      assertThat(member.read(Consistency.STRONG, id("over-tls"))).as(member.nodeName()).isEqualTo(written);
    }
    RaftBackend follower = all.stream().filter(m -> m != leader).findFirst().orElseThrow();
    Resource viaFollower = follower.writeCas(resource(id("via-follower")));
    assertThat(leader.read(Consistency.STRONG, id("via-follower"))).isEqualTo(viaFollower);
  }

  @Test
  void aMemberWhoseCertificateTheCaDidNotSignCannotJoin() {
    TestCertificates ca = TestCertificates.create(dir.resolve("pki"));
    TestCertificates rogueCa = TestCertificates.create(dir.resolve("rogue-pki"));
    // The third member trusts the cluster's CA, but its own certificate comes from another one.
    List<RaftBackend> all = start(List.of(ca, ca, rogueCa), ca.caFile(), REFUSED_QUICKLY);
    RaftBackend rogue = all.get(2);
    List<RaftBackend> trusted = all.subList(0, 2);

    // Two of three make a majority: the trusted members elect a leader among themselves and commit.
    RaftBackend leader = awaitLeader(trusted);
    Resource written = leader.writeCas(resource(id("members-only")));
    assertThat(trusted.get(0).read(Consistency.STRONG, id("members-only"))).isEqualTo(written);
    assertThat(trusted.get(1).read(Consistency.STRONG, id("members-only"))).isEqualTo(written);

    // The rogue member reaches no one: its writes time out, and it never learns the committed write
    // (which the others, by now, replicated long ago).
    assertThatThrownBy(() -> rogue.writeCas(resource(id("intruder"))))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE));
    assertThatThrownBy(() -> rogue.read(Consistency.EVENTUAL, id("members-only")))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_FOUND));
    assertThat(rogue.leader()).isNotEqualTo(Optional.of(leader.nodeName()));
    assertThatThrownBy(() -> leader.read(Consistency.STRONG, id("intruder")))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_FOUND));
  }

  @Test
  void tlsWithoutACaIsRefusedAndUnusableFilesAreNamed() {
    TestCertificates ca = TestCertificates.create(dir.resolve("pki"));
    TlsFiles files = ca.issue("solo", "127.0.0.1");
    RaftConfig plain = RaftConfig.of("solo", dir.resolve("solo"), 18_999, Map.of());

    assertThatThrownBy(() -> plain.withTls(TlsFiles.of(files.certificate(), files.privateKey())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("give the CA");
    TlsFiles mismatched = new TlsFiles(files.certificate(), ca.issue("other").privateKey(), ca.caFile());
    assertThatThrownBy(() -> RaftBackend.start(plain.withTls(mismatched)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not belong to the certificate " + files.certificate());
  }

  /** Starts one member per CA, each with a certificate from its CA; all trust the CA of their own cert. */
  private List<RaftBackend> start(List<TestCertificates> issuers) {
    return start(issuers, null, TestCluster.FAST);
  }

  /** Starts one member per issuer; every member trusts {@code trusted} (null: its own issuer). */
  private List<RaftBackend> start(List<TestCertificates> issuers, Path trusted, RaftConfig.Tuning tuning) {
    List<Integer> ports = FreePorts.loopback(issuers.size());
    int cluster = CLUSTERS.incrementAndGet();
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 0; i < issuers.size(); i++) {
      peers.put("tls" + cluster + "n" + (i + 1), "127.0.0.1:" + ports.get(i));
    }
    List<RaftConfig> configs = new ArrayList<>();
    int i = 0;
    for (String name : peers.keySet()) {
      TestCertificates issuer = issuers.get(i);
      TlsFiles own = issuer.issue(name, "127.0.0.1", "localhost");
      TlsFiles tls = new TlsFiles(own.certificate(), own.privateKey(), trusted != null ? trusted : issuer.caFile());
      configs.add(new RaftConfig(name, dir.resolve(name), ports.get(i++), peers, Limits.DEFAULT, tuning).withTls(tls));
    }
    List<RaftBackend> started = configs.parallelStream().map(RaftBackend::start).toList();
    members.addAll(started);
    return started;
  }

  private static RaftBackend awaitLeader(List<RaftBackend> among) {
    return await()
        .atMost(TestCluster.STARTUP)
        .until(
            () -> {
              RaftBackend leader = among.stream().filter(RaftBackend::isLeader).findFirst().orElse(null);
              boolean agreed = leader != null
                  && among.stream().allMatch(b -> b.leader().equals(Optional.of(leader.nodeName())));
              return agreed ? leader : null;
            },
            leader -> leader != null);
  }
}
