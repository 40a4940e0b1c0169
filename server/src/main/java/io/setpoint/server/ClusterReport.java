package io.setpoint.server;

import io.setpoint.api.operator.v1.ClusterStatus;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.storage.Health;
import io.setpoint.storage.Replication;
import io.setpoint.storage.StorageException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What this member knows of its cluster, as {@code OperatorService/GetClusterStatus} and the UI's
 * cluster page ({@code GET /api/operator/cluster}) answer it: both read this, so the CLI and the UI
 * agree.
 */
final class ClusterReport {
  /** The name the in-memory store answers by, as its snapshots are signed. */
  static final String MEMORY = "memory";

  private final Replication replication; // null: not replicated
  private final Path dataDir; // null: no data directory
  private final Supplier<Health> readiness;

  /**
   * @param replication the store's replication, or null on the in-memory store
   * @param dataDir the store's data directory, or null when it has none
   * @param readiness what {@code /readyz} decides
   */
  ClusterReport(Replication replication, Path dataDir, Supplier<Health> readiness) {
    this.replication = replication;
    this.dataDir = dataDir;
    this.readiness = readiness;
  }

  /** The status now. */
  ClusterStatus status() {
    Health ready = readiness.get();
    ClusterStatus.Builder out = ClusterStatus.newBuilder().setReady(ready.ok()).setReadiness(ready.reason());
    if (dataDir != null) {
      out.setDataDir(dataDir.toString());
      try {
        FileStore disk = Files.getFileStore(dataDir);
        out.setDiskFreeBytes(disk.getUsableSpace()).setDiskTotalBytes(disk.getTotalSpace());
      } catch (IOException e) {
        // The directory is gone or unreadable: the free space is unknown, and readiness says why.
      }
    }
    if (replication == null) {
      return out.setAnsweredBy(MEMORY).setReplicated(false).setLeader(MEMORY)
          .addPeers(Peer.newBuilder().setName(MEMORY).setLeader(true)
              .setLastContact(com.google.protobuf.Duration.getDefaultInstance()))
          .build();
    }
    Replication.RaftStatus raft = replication.status();
    out.setAnsweredBy(replication.nodeName()).setReplicated(true)
        .setTerm(raft.term()).setCommitIndex(raft.commitIndex()).setAppliedIndex(raft.appliedIndex());
    try {
      List<Replication.Member> members = replication.members();
      members.stream().filter(Replication.Member::leader).findFirst().ifPresent(m -> out.setLeader(m.name()));
      out.addAllPeers(peers(members, raft.commitIndex()));
    } catch (StorageException e) {
      // The Raft division is down; readiness says so, and there are no members to show.
    }
    return out.build();
  }

  /** {@code members} as the API's peers, each with its lag behind {@code commitIndex}. */
  static List<Peer> peers(List<Replication.Member> members, long commitIndex) {
    List<Peer> peers = new ArrayList<>();
    for (Replication.Member m : members) {
      Peer.Builder peer = Peer.newBuilder().setName(m.name()).setAddress(m.address()).setLeader(m.leader())
          .setUnreachable(m.unreachable());
      m.index().ifPresent(index -> peer.setIndex(index).setLag(Math.max(0, commitIndex - index)));
      m.lastContact().ifPresent(d -> peer.setLastContact(
          com.google.protobuf.Duration.newBuilder().setSeconds(d.getSeconds()).setNanos(d.getNano())));
      peers.add(peer.build());
    }
    return peers;
  }
}
