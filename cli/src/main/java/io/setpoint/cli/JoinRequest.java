package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.operator.v1.AddPeerRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code agent -join}: asks a running member to add this one, which has no data. While that member
 * cannot be reached or has no leader (the cluster is starting too), it asks again for up to {@link
 * #RETRIES}.
 */
record JoinRequest(String member, String token, Path caFile) {
  private static final Logger log = LoggerFactory.getLogger(JoinRequest.class);
  /** How long to keep asking a member that cannot be reached or has no leader yet. */
  private static final Duration RETRIES = Duration.ofSeconds(60);
  private static final Duration PAUSE = Duration.ofSeconds(1);

  /** Asks {@link #member} to add {@code name} at {@code raftAddress}; throws once it refused or gave up. */
  void send(String name, String raftAddress) {
    AddPeerRequest request = AddPeerRequest.newBuilder().setName(name).setAddress(raftAddress).setLostItsData(true).build();
    long deadline = System.nanoTime() + RETRIES.toNanos();
    try (SetpointClient client = SetpointClient.builder().address(member).token(token).tls(caFile).build()) {
      for (;;) {
        try {
          client.async().addRaftPeer(request).join();
          return;
        } catch (CompletionException e) {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          if (!(cause instanceof SetpointException failure) || failure.code() != Status.Code.UNAVAILABLE
              || System.nanoTime() > deadline) {
            throw cause instanceof RuntimeException r ? r : e;
          }
          log.info("-join {}: not added yet ({}); asking again", member, failure.getMessage());
          Thread.sleep(PAUSE.toMillis());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("-join " + member + ": interrupted while asking to add " + name, e);
    } catch (RuntimeException e) {
      throw new IllegalStateException("-join " + member + ": the cluster did not add " + name + ": " + e.getMessage(), e);
    }
  }
}
