package io.setpoint.controller;

/** Where a controller runs in a cluster of servers. */
public enum Placement {
  /** One instance, on the server that holds the lease (the Raft leader); moves on failover. */
  SINGLETON,
  /** On every server; such controllers generally should not write resources. */
  EACH_SERVER
}
