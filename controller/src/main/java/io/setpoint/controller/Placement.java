package io.setpoint.controller;

/** Where a controller runs in a cluster of servers, or among manager processes. */
public enum Placement {
  /** One instance, on the server that holds the lease (the Raft leader); moves on failover. */
  SINGLETON,
  /** On every server; such controllers generally should not write resources. */
  EACH_SERVER,
  /**
   * In every member of the manager's shard group ({@code Manager.Builder.sharding}), each member
   * reconciling only its share of the keys and caching only that share of the managed type.
   */
  SHARDED
}
