/**
 * The replicated, durable storage backend on Apache Ratis. Start a member with {@link
 * io.setpoint.storage.raft.RaftBackend#start} from a {@link io.setpoint.storage.raft.RaftConfig};
 * follow its leadership through {@link io.setpoint.storage.Replication}, which it implements.
 * Everything else is internal: the state machine, group commit, read barriers and the snapshot
 * format.
 */
package io.setpoint.storage.raft;
