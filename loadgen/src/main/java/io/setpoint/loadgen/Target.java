package io.setpoint.loadgen;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * A system under load, reached over gRPC at one or more endpoints (the members of a cluster).
 * Implementations build their channels the same way, so both systems are driven by the same
 * grpc-java client stack.
 *
 * <p>Keys are the generator's: DNS labels such as {@code put-c003-k0042}, unique per operation,
 * client and key; a target maps them onto its own key space. Every value a target writes carries
 * {@link #PAYLOAD_BYTES} bytes of data that differ from write to write.
 */
public interface Target extends AutoCloseable {
  /** The size of the data every write carries: etcd's value, Setpoint's packed {@code Any}. */
  int PAYLOAD_BYTES = 256;

  /** What {@link Writer#cas} returns when the stored version was not the expected one. */
  long CONFLICT = -1;

  /** {@code setpoint} or {@code etcd}. */
  String system();

  /** How many endpoints (cluster members) the target talks to. */
  int endpoints();

  /**
   * A writer for one client, talking to endpoint {@code client % endpoints()} so the clients
   * spread over the members. Used by one thread at a time.
   */
  Writer writer(int client);

  /**
   * The endpoint whose member leads the cluster now, asked of each member in turn; empty when
   * none says it leads (an election runs) or none answers. Through a follower a write takes an
   * extra hop to the leader, so a run's figures at few clients depend on it.
   */
  OptionalInt leaderEndpoint();

  /**
   * Hands leadership to the member at {@code endpoint} and returns once it leads; fails (a gRPC
   * exception, or {@link IllegalStateException} when it does not lead within {@code timeout}).
   */
  void moveLeader(int endpoint, Duration timeout) throws InterruptedException;

  /** Closes the channels (the servers are not this object's). */
  @Override
  void close();

  /**
   * Blocking writes of one client. Failures other than a CAS conflict surface as the gRPC
   * exception of the call ({@link io.grpc.StatusRuntimeException}).
   */
  interface Writer {
    /** Writes {@code key} unconditionally, with a value derived from {@code seq}; returns the stored version. */
    long put(String key, long seq);

    /**
     * Writes {@code key} if it is still at version {@code expected}; returns the new version, or
     * {@link #CONFLICT} when it was not (and nothing was written).
     */
    long cas(String key, long expected, long seq);

    /** The key's current version read linearizably; 0 when it does not exist. */
    long version(String key);
  }
}
