package io.setpoint.server;

/**
 * How an agent whose Raft member joins a running cluster asks to be added (see {@link
 * Agent.Builder#raft(io.setpoint.storage.raft.RaftConfig, Joiner)}): {@code setpoint agent -join
 * HOST:PORT} calls {@code OperatorService/AddPeer} on the member at that address.
 */
@FunctionalInterface
public interface Joiner {
  /**
   * Has the cluster add the member {@code node}, whose Raft address is {@code raftAddress}, and
   * returns once the cluster committed it. Called with this member listening and waiting; it has
   * no data, so a member of that name at that address is to be added again as new.
   *
   * @throws RuntimeException saying why the member could not be added; the agent does not start
   */
  void requestAdd(String node, String raftAddress);
}
