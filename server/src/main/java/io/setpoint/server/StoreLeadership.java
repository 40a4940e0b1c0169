package io.setpoint.server;

import io.setpoint.controller.Leadership;
import io.setpoint.storage.Replication;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * SINGLETON controllers follow the store's Raft leadership: they run on the member that leads,
 * start when it is elected and stop when it steps down.
 */
final class StoreLeadership implements Leadership {
  private final Replication replication;

  StoreLeadership(Replication replication) {
    this.replication = replication;
  }

  @Override
  public boolean isLeader() {
    return replication.isLeader();
  }

  @Override
  public void onChange(Runnable listener) {
    // Starting and stopping controllers blocks (a stop drains reconciles), so it must not run on
    // the store's own thread; one thread keeps the changes in order. Registered for the agent's
    // lifetime: the store ends it when it closes.
    Executor inOrder = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("setpoint-leadership").factory());
    replication.onLeadershipChange(leader -> inOrder.execute(listener));
  }
}
