package io.setpoint.storage.raft;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Sends entries and read barriers through a Ratis client, as an application of stock Ratis does:
 * the client finds the leader, retries, and Raft's retry cache drops the repeats. It is the path
 * that {@link LocalSubmitter} and the forward stream replace, kept so that {@link
 * RaftCustomization} can turn either off and the two be compared.
 */
final class ClientSubmitter implements AutoCloseable {
  private final RaftClient client;
  private final RaftPeerId self;

  ClientSubmitter(RaftClient client, RaftPeerId self) {
    this.client = client;
    this.self = self;
  }

  /** Commits {@code entry} through whichever member leads. */
  CompletableFuture<RaftClientReply> write(Message entry) {
    return client.async().send(entry);
  }

  /** A linearizable read barrier answered by this member once it has applied the leader's commit index. */
  CompletableFuture<RaftClientReply> readBarrier() {
    return client.async().sendReadOnly(Message.EMPTY, self);
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException e) {
      // Closing only releases the client's connections; nothing is lost if that fails.
    }
  }
}
