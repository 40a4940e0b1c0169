package io.setpoint.storage.engine;

import io.setpoint.api.v1.Resource;
import java.util.List;

/**
 * The history a store retains, in the form a snapshot carries it, so that a store restored from
 * the snapshot resumes watches from the same revisions as the store it was taken of: every change
 * after {@code floor}, oldest first, and the versions as of {@code floor} of the keys those changes
 * touched (every other key's version as of {@code floor} is its live one).
 *
 * @param floor the oldest revision a watch may resume after
 * @param bases the live versions as of {@code floor} of the keys that {@code changes} touch
 * @param changes every change after {@code floor}, one per revision, oldest first
 */
public record RetainedHistory(long floor, List<Resource> bases, List<Change> changes) {
  /**
   * One retained change.
   *
   * @param revision the store revision of the change
   * @param resource the resource written then, or the one deleted
   * @param deleted whether the change deleted {@code resource}
   */
  public record Change(long revision, Resource resource, boolean deleted) {}

  public RetainedHistory {
    bases = List.copyOf(bases);
    changes = List.copyOf(changes);
  }

  /** No history: a store restored at {@code revision} resumes watches from there on. */
  public static RetainedHistory none(long revision) {
    return new RetainedHistory(revision, List.of(), List.of());
  }
}
