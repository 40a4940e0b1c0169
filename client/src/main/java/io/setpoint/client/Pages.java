package io.setpoint.client;

import io.setpoint.api.v1.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Reads every page of a paged call (List, ListByOwner) into one list, a page after the other. */
final class Pages {
  /** One page: its resources, and the token of the next (empty on the last). */
  record Page(List<Resource> resources, String next) {}

  private Pages() {}

  /**
   * Fetches {@code first}, then each next page ({@code at} puts its token into the request), and
   * completes with all their resources; cancelling the result asks for no more pages.
   */
  static <Q> CompletableFuture<List<Resource>> all(
      Q first, Function<Q, CompletableFuture<Page>> fetch, BiFunction<Q, String, Q> at) {
    CompletableFuture<List<Resource>> result = new CompletableFuture<>();
    next(first, fetch, at, new ArrayList<>(), result);
    return result;
  }

  private static <Q> void next(Q request, Function<Q, CompletableFuture<Page>> fetch, BiFunction<Q, String, Q> at,
      List<Resource> found, CompletableFuture<List<Resource>> result) {
    if (result.isDone()) {
      return; // cancelled by the caller
    }
    fetch.apply(request).whenComplete((page, failure) -> {
      if (failure != null) {
        result.completeExceptionally(failure);
        return;
      }
      found.addAll(page.resources());
      if (page.next().isEmpty()) {
        result.complete(List.copyOf(found));
      } else {
        next(at.apply(request, page.next()), fetch, at, found, result);
      }
    });
  }
}
