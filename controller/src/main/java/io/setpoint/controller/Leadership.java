package io.setpoint.controller;

/**
 * Whether this process holds the lease SINGLETON controllers run under (in an agent: whether its
 * store is the Raft leader). The manager starts and stops them as it changes.
 */
public interface Leadership {
  boolean isLeader();

  /** Calls {@code listener} (from any thread) whenever {@link #isLeader()} may have changed. */
  void onChange(Runnable listener);

  /** Always the leader: a single node, or the memory store. */
  static Leadership always() {
    return new Leadership() {
      @Override
      public boolean isLeader() {
        return true;
      }

      @Override
      public void onChange(Runnable listener) {}
    };
  }
}
