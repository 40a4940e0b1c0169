package io.setpoint.storage.raft;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * Hands log entries straight to this member's Raft server while it leads. Going through a Ratis
 * client instead would cost a gRPC round trip from the member to itself (serialization, two
 * transports' threads and a retry-cache stream) for every entry, which on a small machine was about
 * a third of a leader's CPU per write.
 *
 * <p>The price is that such an entry is not retried by a client: when leadership moves while it is
 * in flight, it fails, and it may or may not have been committed. Members that do not lead (and a
 * leader still applying entries of earlier terms) use the Ratis client, which finds the leader and
 * retries with the client's duplicate detection.
 */
final class LeaderSubmitter {
  private final RaftServer server;
  private final RaftPeerId self;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  LeaderSubmitter(RaftServer server, RaftPeerId self) {
    this.server = server;
    this.self = self;
  }

  /**
   * Submits {@code entry} to this member's server if it is a ready leader; {@code null} if not, so
   * that the caller goes through the Ratis client.
   */
  CompletableFuture<RaftClientReply> writeIfLeading(Message entry) {
    return submitIfLeading(entry, RaftClientRequest.writeRequestType());
  }

  /**
   * A linearizable read barrier (ReadIndex, or the lease) answered by this member's server if it
   * is a ready leader; {@code null} if not.
   */
  CompletableFuture<RaftClientReply> readBarrierIfLeading() {
    return submitIfLeading(Message.EMPTY, RaftClientRequest.readRequestType());
  }

  private CompletableFuture<RaftClientReply> submitIfLeading(Message entry, RaftClientRequest.Type type) {
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
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(self)
            .setGroupId(RatisSettings.GROUP_ID)
            .setCallId(callIds.incrementAndGet())
            .setMessage(entry)
            .setType(type)
            .build();
    try {
      return server.submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
