package io.setpoint.storage.engine;

/**
 * Bounds of an indexed store.
 *
 * @param history how many past revisions stay readable: older page tokens and watch resumes fail
 *     with {@code COMPACTED}
 * @param watchBuffer how many undelivered events a watch may hold before it is closed for falling
 *     behind (the client then resumes from its last revision)
 */
public record Limits(int history, int watchBuffer) {
  /** 65,536 revisions of history and 16,384 buffered events per watch. */
  public static final Limits DEFAULT = new Limits(65_536, 16_384);

  public Limits {
    if (history < 1) {
      throw new IllegalArgumentException("history must be at least 1, was " + history);
    }
    if (watchBuffer < 1) {
      throw new IllegalArgumentException("watchBuffer must be at least 1, was " + watchBuffer);
    }
  }
}
