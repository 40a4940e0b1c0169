package io.setpoint.storage.raft;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * Hands requests straight to this member's Raft server: the entries of a leader, and every read
 * barrier. Going through a Ratis client instead costs a gRPC round trip from the member to itself
 * (serialization, two transports' threads and a retry-cache stream) per request, which on a small
 * machine was about a third of a leader's CPU per write. For read barriers it also cost seconds
 * around every leader change: a failed read made the client close its connection to its own
 * member, and the barriers still on that connection waited out the three-second graceful close.
 *
 * <p>The price is that nothing handed over here is retried by a client. An entry fails when
 * leadership moves while it is in flight, and it may or may not have been committed; members that
 * do not lead (and a leader still applying entries of earlier terms) send entries through the Ratis
 * client, which finds the leader and retries with the client's duplicate detection. A read barrier
 * fails while no leader is known, and its caller tries again: it has no effect to repeat.
 *
 * <p>Since nothing repeats an entry handed over here, each request names the entries answered
 * since the one before, and the leader drops them from Raft's retry cache. Otherwise each stays
 * there with its reply for the cache's expiry (a minute): under load, tens of megabytes that every
 * young collection copied until they reached the old generation.
 */
final class LocalSubmitter {
  /** Bounds the ids one request carries; the rest go with the next. */
  private static final int MAX_ANSWERED_PER_REQUEST = 1_024;

  private final RaftServer server;
  private final RaftPeerId self;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  /** Call ids of answered entries, for the next request to name. */
  private final ConcurrentLinkedQueue<Long> answered = new ConcurrentLinkedQueue<>();

  LocalSubmitter(RaftServer server, RaftPeerId self) {
    this.server = server;
    this.self = self;
  }

  /**
   * Submits {@code entry} to this member's server if it is a ready leader; {@code null} if not, so
   * that the caller goes through the Ratis client.
   */
  CompletableFuture<RaftClientReply> writeIfLeading(Message entry) {
    RaftServer.Division division;
    try {
      division = server.getDivision(RatisSettings.GROUP_ID);
    } catch (IOException e) {
      return null;
    }
    DivisionInfo info = division.getInfo();
    if (!info.isLeader() || !info.isLeaderReady()) {
      return null;
    }
    return submit(division, entry, RaftClientRequest.writeRequestType());
  }

  /**
   * A linearizable read barrier answered by this member's server, in any role: a leader checks its
   * leadership (ReadIndex, or the lease), a follower asks the leader for its commit index; either
   * way the reply comes once this member has applied that index.
   */
  CompletableFuture<RaftClientReply> readBarrier() {
    try {
      return submit(server.getDivision(RatisSettings.GROUP_ID), Message.EMPTY, RaftClientRequest.readRequestType());
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<RaftClientReply> submit(
      RaftServer.Division division, Message entry, RaftClientRequest.Type type) {
    long callId = callIds.incrementAndGet();
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(self)
            .setGroupId(RatisSettings.GROUP_ID)
            .setCallId(callId)
            .setRepliedCallIds(takeAnswered())
            .setMessage(entry)
            .setType(type)
            .build();
    CompletableFuture<RaftClientReply> reply;
    try {
      // RaftServer's own entry point runs each request on the server's client executor and blocks
      // the caller until it has been taken: a hand-off and a wait that the division itself skips.
      reply = division instanceof RaftClientAsynchronousProtocol direct
          ? direct.submitClientRequestAsync(request)
          : server.submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (type.is(RaftProtos.RaftClientRequestProto.TypeCase.WRITE)) {
      reply.whenComplete((r, e) -> answered.add(callId));
    }
    return reply;
  }

  private List<Long> takeAnswered() {
    Long first = answered.poll();
    if (first == null) {
      return List.of();
    }
    List<Long> ids = new ArrayList<>();
    ids.add(first);
    for (Long id; ids.size() < MAX_ANSWERED_PER_REQUEST && (id = answered.poll()) != null; ) {
      ids.add(id);
    }
    return ids;
  }
}
