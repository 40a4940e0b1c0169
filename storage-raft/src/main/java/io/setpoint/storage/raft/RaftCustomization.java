package io.setpoint.storage.raft;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The changes this backend makes to how Ratis replicates, each made for speed. Every one is on by
 * default; the system property {@value #PROPERTY} (a comma-separated list of {@link #flag} names)
 * turns some off, so that a benchmark or the fault suite can measure what each buys and what it
 * costs (docs/benchmarks.md, "What each Raft change buys"). Without them the backend is stock Ratis
 * with a Ratis client per member.
 */
enum RaftCustomization {
  /** The leader tells a forwarding follower of a commit at once ({@link CommitPropagation}). */
  COMMIT_PROPAGATION("commit-propagation"),
  /** Followers take appends on the connection's I/O thread ({@link InlineAppends}). */
  INLINE_APPENDS("inline-appends"),
  /**
   * Followers forward their batches to the leader's batcher ({@link ForwardClient}); off, each
   * follower's batch is its own log entry, sent through a Ratis client.
   */
  FORWARD_STREAM("forward-stream"),
  /**
   * The leader's entries and every read barrier go straight to this member's server ({@link
   * LocalSubmitter}); off, through a Ratis client.
   */
  LOCAL_SUBMITTER("local-submitter"),
  /** No metadata entry after each commit ({@link RatisSettings}); off, Ratis writes them. */
  NO_METADATA_ENTRIES("no-metadata-entries");

  /** The system property that lists the customizations to turn off. */
  static final String PROPERTY = "setpoint.raft.off";

  private final String flag;

  RaftCustomization(String flag) {
    this.flag = flag;
  }

  /** The name {@value #PROPERTY} lists it by. */
  String flag() {
    return flag;
  }

  /**
   * The customizations {@value #PROPERTY} turns off in this JVM.
   *
   * @throws IllegalStateException when the property names an unknown one (the JVM was started
   *     wrong, not the store's configuration)
   */
  static Set<RaftCustomization> offInThisJvm() {
    try {
      return parseOff(System.getProperty(PROPERTY, ""));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * The customizations {@code list} names, comma-separated (blank: none).
   *
   * @throws IllegalArgumentException naming an unknown entry and the known ones
   */
  static Set<RaftCustomization> parseOff(String list) {
    Set<RaftCustomization> off = EnumSet.noneOf(RaftCustomization.class);
    for (String entry : list.split(",")) {
      String name = entry.strip().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        continue;
      }
      off.add(Arrays.stream(values())
          .filter(c -> c.flag.equals(name))
          .findFirst()
          .orElseThrow(() -> new IllegalArgumentException(
              PROPERTY + ": unknown Raft customization '" + entry.strip() + "'; known: " + known())));
    }
    return off;
  }

  private static String known() {
    return Arrays.stream(values()).map(RaftCustomization::flag).collect(Collectors.joining(", "));
  }
}
