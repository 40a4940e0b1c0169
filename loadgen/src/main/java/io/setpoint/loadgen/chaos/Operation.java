package io.setpoint.loadgen.chaos;

/**
 * One client call as the client saw it.
 *
 * @param client which client made it
 * @param member the member it was sent to (from 0)
 * @param key the resource name
 * @param kind what it was
 * @param outcome what came of it
 * @param call when it was sent ({@link System#nanoTime()})
 * @param ret when its answer arrived
 * @param expected for a CAS, the value it required (null for a create-only write)
 * @param value what a write wrote or a read returned (null: absent)
 * @param revision the version the member answered a write or read with (0: none)
 * @param code {@code OK} or the gRPC code of the failure
 */
record Operation(int client, int member, String key, Kind kind, Outcome outcome, long call, long ret,
    String expected, String value, long revision, String code) {
  /** What a client did. */
  enum Kind {
    /** A consistent (linearizable) read. */
    STRONG_READ,
    /** A default (eventually consistent) read. */
    READ,
    /** A write without a version. */
    PUT,
    /** A write with the version the client last saw. */
    CAS,
    /** A write only if the name is free. */
    CREATE,
    /** A delete without a version. */
    DELETE;

    boolean writes() {
      return this != STRONG_READ && this != READ;
    }
  }

  /** What came of a call. */
  enum Outcome {
    /** Answered: done (or, for a read, read). */
    OK,
    /** Answered: refused, surely without effect (a CAS on another version, a create of a taken name). */
    FAILED,
    /** Answered: rejected before it could take effect, saying nothing of the key (a rate limit, say). */
    REJECTED,
    /** No answer, or one that leaves its effect unknown (timed out, unavailable). */
    UNKNOWN
  }

  /** Whether the member answered at all (done or refused), as opposed to an unknown outcome. */
  boolean answered() {
    return outcome != Outcome.UNKNOWN;
  }

  long latencyNanos() {
    return ret - call;
  }
}
