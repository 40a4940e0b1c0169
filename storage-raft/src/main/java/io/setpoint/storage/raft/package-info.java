/**
 * The replicated, durable storage backend on Apache Ratis. Start a member with {@link
 * io.setpoint.storage.raft.RaftBackend#start} from a {@link io.setpoint.storage.raft.RaftConfig};
 * follow its leadership through {@link io.setpoint.storage.Replication}, which it implements.
 * Everything else is internal: the state machine, group commit, read barriers and the snapshot
 * format.
 *
 * <p>{@code RaftBackend} is a facade over package-private parts, each with one job:
 *
 * <ul>
 *   <li>{@code RaftBoot}: starting a member's Ratis server and group, and wiring the rest to it.
 *   <li>{@code SubmitPipeline}: writes and strong reads through Raft ({@code WriteBatcher}, {@code
 *       LocalSubmitter}, {@code ClientSubmitter}, {@code ReadBarrier}); {@code RaftOps}: the
 *       backend's writes as log ops, and their outcomes back.
 *   <li>{@code ForwardClient} and {@code ForwardLink}: a follower's batches sent to the leader,
 *       answered there by {@code ForwardService} and {@code ForwardedWrites}.
 *   <li>{@code RaftReplication}: leadership, membership ({@code Membership}) and Raft's positions.
 *   <li>{@code RaftErrors}: Ratis's failures and the state machine's refusals as {@code
 *       StorageException}s.
 *   <li>{@code StoreStateMachine} over {@code ReplicatedStore}: the log applied to the store
 *       engine; {@code SnapshotWriter} and {@code SnapshotFile}: its snapshots.
 * </ul>
 */
package io.setpoint.storage.raft;
