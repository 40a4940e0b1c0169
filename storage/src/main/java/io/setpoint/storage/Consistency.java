package io.setpoint.storage;

/** How fresh a read must be. */
public enum Consistency {
  /** Whatever this server has applied; monotonic per server. */
  EVENTUAL,
  /** Linearizable: reflects every write acknowledged before the read began. */
  STRONG
}
