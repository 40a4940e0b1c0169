package io.setpoint.loadgen;

import java.util.Locale;

/** The write operations the generator measures. */
public enum Op {
  /** A blind write: Setpoint Write without a version; etcd Put. */
  PUT,
  /**
   * A compare-and-swap on the version the client last wrote: Setpoint Write with the expected
   * version; etcd Txn comparing mod_revision, then Put.
   */
  CAS;

  /** {@code put} or {@code cas}, as on the command line and in key names. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
