package io.setpoint.loadgen.chaos;

/** A fault a phase injects, and undoes when its fault window ends. */
public enum Fault {
  /** No fault: the baseline every figure is compared with. */
  NONE("no fault"),
  /** SIGKILL of a member that does not lead; started again when the window ends. */
  KILL_FOLLOWER("kill -9 of a follower"),
  /** SIGKILL of the leader; started again when the window ends. */
  KILL_LEADER("kill -9 of the leader"),
  /** SIGSTOP of the leader; SIGCONT when the window ends. */
  PAUSE_LEADER("SIGSTOP of the leader"),
  /** SIGTERM of every member in turn, each started again at once and ready before the next stops. */
  ROLLING_RESTART("rolling SIGTERM restart"),
  /** The leader's Raft links to every other member cut, both ways; healed when the window ends. */
  PARTITION_LEADER("the leader cut off"),
  /** A follower's Raft links cut. */
  PARTITION_FOLLOWER("a follower cut off"),
  /** The members split in two, the leader and fewer than half of them on one side. */
  PARTITION_MINORITY("the leader in a minority"),
  /**
   * A member (any, the leader too) removed from the membership and stopped; when the window ends
   * it is added back through {@code -join} on an empty data directory, as a replaced host would be.
   */
  REPLACE_MEMBER("a member removed and added back empty"),
  /**
   * The leader's disk filled until writing fails for want of space; freed when the window ends.
   * Each member's data directory is then a tmpfs of its own, which needs root.
   */
  FULL_DISK("the leader's disk full");

  private final String description;

  Fault(String description) {
    this.description = description;
  }

  /** What the report calls it, e.g. "kill -9 of the leader". */
  public String description() {
    return description;
  }

  /** Whether it cuts the members' network (so that the run puts proxies between them). */
  public boolean partitions() {
    return name().startsWith("PARTITION_");
  }

  /** The option value that names it, e.g. {@code kill-leader}. */
  public String optionName() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
