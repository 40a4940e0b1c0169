package io.setpoint.controller.queue;

import java.util.Objects;

/**
 * Why a key was queued, kept on the {@link WorkQueue.Item} so every reconcile can say what caused it.
 *
 * @param kind the category of cause
 * @param detail free-form text for people, such as {@code "upsert demo.v2.Artist/default/default/
 *     miles @ revision 7"}; empty when the kind says it all
 * @param traceparent the W3C trace context of what caused it (the write behind a watch event), so
 *     the reconcile joins that trace; empty when there is none
 */
public record Trigger(Kind kind, String detail, String traceparent) {

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

  /** Checks that no component is null. */
  public Trigger {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(detail, "detail");
    Objects.requireNonNull(traceparent, "traceparent");
  }

  /** A trigger with no trace context. */
  public Trigger(Kind kind, String detail) {
    this(kind, detail, "");
  }

  /** An event trigger caused by what {@code traceparent} traces. */
  public static Trigger event(String detail, String traceparent) {
    return new Trigger(Kind.EVENT, detail, traceparent);
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
