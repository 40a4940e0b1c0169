package io.setpoint.controller.loop;

import io.setpoint.controller.Result;
import java.util.Objects;

/**
 * The business logic of a {@link Loop}: drives the world toward the object's state when it exists
 * ({@link #onPresent}) and cleans up when it does not ({@link #onAbsent}). Called for at most one
 * handling of a key at a time, with state fetched from the {@link Store} just before; must be
 * idempotent, since lists, retries and restarts handle the same state again.
 *
 * <p>Return {@link Result#done()}, or {@link Result#requeueAfter} to look again later. Throwing
 * retries the key with exponential backoff (up to the loop's {@code maxRetries}), except for a
 * {@link io.setpoint.controller.TerminalException}.
 *
 * <pre>{@code
 * Handler<String, Item> handler = Handler.of(
 *     (ctx, item) -> { upsert(item); return Result.done(); },
 *     (ctx, sku) -> { remove(sku); return Result.done(); });
 * }</pre>
 *
 * @param <K> the key type
 * @param <T> the object type
 */
@FunctionalInterface
public interface Handler<K, T> {

  /** The object behind {@code ctx.key()} exists and is {@code object}. */
  Result onPresent(LoopContext<K> ctx, T object) throws Exception;

  /** The object behind {@code key} does not exist (any more). Does nothing by default. */
  default Result onAbsent(LoopContext<K> ctx, K key) throws Exception {
    return Result.done();
  }

  /** What to do when an object is absent; the second half of {@link #of}. */
  @FunctionalInterface
  interface Absent<K> {
    /** See {@link Handler#onAbsent}. */
    Result onAbsent(LoopContext<K> ctx, K key) throws Exception;
  }

  /** A handler from two lambdas. */
  static <K, T> Handler<K, T> of(Handler<K, T> onPresent, Absent<K> onAbsent) {
    Objects.requireNonNull(onPresent, "onPresent");
    Objects.requireNonNull(onAbsent, "onAbsent");
    return new Handler<>() {
      @Override
      public Result onPresent(LoopContext<K> ctx, T object) throws Exception {
        return onPresent.onPresent(ctx, object);
      }

      @Override
      public Result onAbsent(LoopContext<K> ctx, K key) throws Exception {
        return onAbsent.onAbsent(ctx, key);
      }
    };
  }
}
