package io.setpoint.server;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * How many client connections the agent keeps open: {@code total} in all, {@code perClient} from
 * one client address. The defaults follow the process's file-descriptor limit, so that connections
 * alone can never use up the descriptors the store (Raft log segments, snapshots, peer
 * connections) and the JVM need.
 */
record ConnectionLimits(int total, int perClient) {
  /** The default cap for one client address (when below the total). */
  static final int DEFAULT_PER_CLIENT = 512;
  /** Descriptors kept for everything but client connections, unless the limit is tiny. */
  static final int MIN_HEADROOM = 256;
  /** The descriptor limit assumed where the JVM cannot tell it (not a Unix). */
  static final long UNKNOWN_DESCRIPTOR_LIMIT = 4096;

  ConnectionLimits {
    if (total < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1, was " + total);
    }
    if (perClient < 1) {
      throw new IllegalArgumentException("maxConnectionsPerClient must be at least 1, was " + perClient);
    }
  }

  /**
   * The defaults for a process allowed {@code descriptors} open files: a fifth of them (at least
   * {@value #MIN_HEADROOM}, at most half) are kept for the store and the JVM, the rest may be
   * connections; one client address may hold {@value #DEFAULT_PER_CLIENT} of them.
   */
  static ConnectionLimits forDescriptorLimit(long descriptors) {
    long headroom = Math.min(Math.max(MIN_HEADROOM, descriptors / 5), descriptors / 2);
    int total = (int) Math.max(1, Math.min(Integer.MAX_VALUE, descriptors - headroom));
    return new ConnectionLimits(total, Math.min(total, DEFAULT_PER_CLIENT));
  }

  /**
   * The limits given, where 0 stands for the default of a process allowed {@code descriptors} open
   * files: a given total with the default per-client cap keeps that cap within the total.
   */
  static ConnectionLimits of(int total, int perClient, long descriptors) {
    int all = total != 0 ? total : forDescriptorLimit(descriptors).total();
    return new ConnectionLimits(all, perClient != 0 ? perClient : Math.min(all, DEFAULT_PER_CLIENT));
  }

  /**
   * The most files this process may have open (RLIMIT_NOFILE), or {@link #UNKNOWN_DESCRIPTOR_LIMIT}
   * where the JVM cannot tell.
   */
  static long descriptorLimit() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
        && unix.getMaxFileDescriptorCount() > 0
        ? unix.getMaxFileDescriptorCount()
        : UNKNOWN_DESCRIPTOR_LIMIT;
  }
}
