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
  /** SIGTERM of every member in turn, each started again and ready before the next stops. */
  ROLLING_RESTART("rolling SIGTERM restart");

  private final String description;

  Fault(String description) {
    this.description = description;
  }

  /** What the report calls it, e.g. "kill -9 of the leader". */
  public String description() {
    return description;
  }

  /** The option value that names it, e.g. {@code kill-leader}. */
  public String optionName() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
