package io.setpoint.controller.queue;

import java.util.Objects;

/**
 * Why a key was queued, kept on the {@link WorkItem} so every reconcile can say what caused it.
 *
 * @param kind the category of cause
 * @param detail free-form text for people, such as {@code "upsert demo.v2.Artist/default/default/
 *     miles @ revision 7"}; empty when the kind says it all
 */
public record Trigger(Kind kind, String detail) {

  /** The category of a {@link Trigger}. */
  public enum Kind {
    /** A watched resource or a custom event source changed. */
    EVENT,
    /** A reconcile asked to run again after a delay. */
    TIMER,
    /** A reconcile failed and is retried with backoff. */
    RETRY,
    /** The periodic safety reconcile came due. */
    RESYNC,
    /** The controller started, or its shard took keys over, and queued every managed resource. */
    STARTUP,
    /** Someone asked for a reconcile by hand (CLI, API, test). */
    MANUAL
  }

  private static final Trigger STARTUP = new Trigger(Kind.STARTUP, "");
  private static final Trigger RESYNC = new Trigger(Kind.RESYNC, "");

  /** Checks that neither component is null. */
  public Trigger {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(detail, "detail");
  }

  /** A trigger of {@code kind} with {@code detail}. */
  public static Trigger of(Kind kind, String detail) {
    return new Trigger(kind, detail);
  }

  /** A change event, described by {@code detail}. */
  public static Trigger event(String detail) {
    return new Trigger(Kind.EVENT, detail);
  }

  /** A requested delay that came due, described by {@code detail}. */
  public static Trigger timer(String detail) {
    return new Trigger(Kind.TIMER, detail);
  }

  /** A retry after a failure, described by {@code detail}. */
  public static Trigger retry(String detail) {
    return new Trigger(Kind.RETRY, detail);
  }

  /** A manual request, described by {@code detail}. */
  public static Trigger manual(String detail) {
    return new Trigger(Kind.MANUAL, detail);
  }

  /** The startup sweep (a shared instance). */
  public static Trigger startup() {
    return STARTUP;
  }

  /** A periodic resync (a shared instance). */
  public static Trigger resync() {
    return RESYNC;
  }

  /** {@code KIND detail}, or just {@code KIND} without detail. */
  @Override
  public String toString() {
    return detail.isEmpty() ? kind.name() : kind.name() + ' ' + detail;
  }
}
