package io.setpoint.server;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a starting agent has opened so far, closed in reverse order if a later step fails, so a
 * failed start leaks no store, port or thread.
 */
final class Closer {
  private static final Logger log = LoggerFactory.getLogger(Closer.class);

  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  /** Remembers {@code resource}, to be closed by {@link #closeAll}; returns it. */
  <T extends AutoCloseable> T add(T resource) {
    opened.push(resource);
    return resource;
  }

  /** Closes everything added, the last first; a failure to close one does not stop the rest. */
  void closeAll(Throwable cause) {
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        cause.addSuppressed(e);
        log.debug("closing after a failed start failed too", e);
      }
    }
  }
}
