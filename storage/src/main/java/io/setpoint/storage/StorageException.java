package io.setpoint.storage;

/** An expected storage failure; {@link #reason()} says which, for mapping to API codes. */
public final class StorageException extends RuntimeException {
  /** Why an operation failed. */
  public enum Reason {
    /** Nothing is stored under that id (or not that incarnation). */
    NOT_FOUND,
    /** The expected version did not match the stored one. */
    CAS_FAILURE,
    /** A resource of that name exists with another uid. */
    WRONG_UID,
    /** The resource is stored under another group version. */
    GROUP_VERSION_MISMATCH,
    /** The revision asked for is older than the retained history: list or watch afresh. */
    COMPACTED,
    /** A watch resumes from a revision this store has not reached: it never sent that event. */
    FUTURE_REVISION,
    /** A page token that this listing did not issue. */
    BAD_PAGE_TOKEN,
    /** The backend closed a watch (it fell behind, the backend is closing, state was restored). */
    WATCH_CLOSED,
    /** The backend cannot serve now (no leader, shutting down); retrying may succeed. */
    UNAVAILABLE,
    /**
     * The backend holds as many bytes of pending writes as its memory budget allows: nothing was
     * written; retrying later, or more slowly, may succeed.
     */
    RESOURCE_EXHAUSTED,
    /**
     * The write carried a {@code Fence} whose lease its writer no longer holds: nothing was
     * written, and retrying cannot succeed until the writer wins the lease again.
     */
    FENCED,
    /**
     * A blind write ({@link Backend#putAsync}) that the store does not decide alone, such as a
     * create under an owner: nothing was written; decide it from a read and a compare-and-swap.
     */
    UNDECIDED
  }

  private final Reason reason;

  public StorageException(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
