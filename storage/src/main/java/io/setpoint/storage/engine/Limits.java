package io.setpoint.storage.engine;

/**
 * Bounds of an indexed store, by count and by bytes: whichever is reached first applies. Bytes are
 * the encoded (protobuf) size of the resources held, an estimate of the heap they take.
 *
 * @param history how many past revisions stay readable: older page tokens and watch resumes fail
 *     with {@code COMPACTED}
 * @param watchBuffer how many undelivered events a watch may hold before it is closed for falling
 *     behind (the client then resumes from its last revision)
 * @param historyBytes how many bytes of resources the retained revisions may hold; the oldest are
 *     compacted first to stay within it (the newest revision is always kept)
 * @param watchBufferBytes how many bytes of undelivered events one watch may hold before it is
 *     closed for falling behind (a single larger event is still delivered). Events are shared by
 *     every watch that receives them, so many watches of one type hold little more than one
 */
public record Limits(int history, int watchBuffer, long historyBytes, long watchBufferBytes) {
  /**
   * 65,536 revisions of history and 16,384 buffered events per watch; an eighth of the maximum
   * heap for history and a sixteenth per watch buffer.
   */
  public static final Limits DEFAULT = new Limits(65_536, 16_384);

  public Limits {
    if (history < 1) {
      throw new IllegalArgumentException("history must be at least 1, was " + history);
    }
    if (watchBuffer < 1) {
      throw new IllegalArgumentException("watchBuffer must be at least 1, was " + watchBuffer);
    }
    if (historyBytes < 1) {
      throw new IllegalArgumentException("historyBytes must be at least 1, was " + historyBytes);
    }
    if (watchBufferBytes < 1) {
      throw new IllegalArgumentException("watchBufferBytes must be at least 1, was " + watchBufferBytes);
    }
  }

  /**
   * Counts as given, byte budgets sized to this JVM's maximum heap ({@link #defaultHistoryBytes()},
   * {@link #defaultWatchBufferBytes()}).
   */
  public Limits(int history, int watchBuffer) {
    this(history, watchBuffer, defaultHistoryBytes(), defaultWatchBufferBytes());
  }

  /** These limits with another history byte budget. */
  public Limits withHistoryBytes(long bytes) {
    return new Limits(history, watchBuffer, bytes, watchBufferBytes);
  }

  /** These limits with another per-watch byte budget. */
  public Limits withWatchBufferBytes(long bytes) {
    return new Limits(history, watchBuffer, historyBytes, bytes);
  }

  /** An eighth of the maximum heap ({@link Runtime#maxMemory()}): 64 MiB of a 512 MiB heap. */
  public static long defaultHistoryBytes() {
    return Runtime.getRuntime().maxMemory() / 8;
  }

  /** A sixteenth of the maximum heap: 32 MiB of a 512 MiB heap. */
  public static long defaultWatchBufferBytes() {
    return Runtime.getRuntime().maxMemory() / 16;
  }
}
