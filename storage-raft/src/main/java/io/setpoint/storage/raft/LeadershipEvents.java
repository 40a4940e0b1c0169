package io.setpoint.storage.raft;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans leadership changes out to listeners, one call at a time and in order, on a thread of its own:
 * Ratis reports them from its own threads, which a listener must not hold up.
 */
final class LeadershipEvents implements Consumer<Boolean>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeadershipEvents.class);

  private final Set<Consumer<Boolean>> listeners = new CopyOnWriteArraySet<>();
  private final ExecutorService events =
      Executors.newSingleThreadExecutor(Thread.ofVirtual().name("raft-leadership").factory());
  /** Only touched on the events thread. */
  private boolean leader;

  /** Records a change reported by Ratis. */
  @Override
  public void accept(Boolean nowLeader) {
    run(
        () -> {
          if (leader != nowLeader) {
            leader = nowLeader;
            listeners.forEach(l -> tell(l, nowLeader));
          }
        });
  }

  AutoCloseable add(Consumer<Boolean> listener) {
    run(
        () -> {
          if (listeners.add(listener)) {
            tell(listener, leader);
          }
        });
    return () -> run(() -> listeners.remove(listener));
  }

  private void run(Runnable event) {
    try {
      events.execute(event);
    } catch (RejectedExecutionException e) {
      // Closed: nothing more is reported.
    }
  }

  private static void tell(Consumer<Boolean> listener, boolean leader) {
    try {
      listener.accept(leader);
    } catch (RuntimeException e) {
      log.warn("leadership listener {} failed", listener, e);
    }
  }

  /** Tells every listener this member no longer leads, then stops. */
  @Override
  public void close() {
    accept(false);
    events.shutdown();
  }
}
