/**
 * The indexed multi-version store shared by backends, behind one facade: {@link
 * io.setpoint.storage.engine.StoreEngine} (writes under one writer's lock with fences and request
 * ids, lock-free reads, watches, snapshots and their restore) and the values it takes and answers,
 * nested in it ({@code Limits}, {@code Result}, {@code Applied}, {@code Image}, {@code
 * RetainedHistory}). For backend implementors; applications use {@link io.setpoint.storage.Backend}.
 *
 * <p>The rest is package-private:
 *
 * <ul>
 *   <li>{@code StoreState}: the index and remembered request ids a snapshot replaces, and the
 *       steps of each write (repeat, fence, change, watchers).
 *   <li>{@code ResourceIndex}: deterministic compare-and-swap, blind writes and reads at a
 *       revision, over {@code VersionChains} (each key's versions, sorted and hashed), {@code
 *       OwnerIndex} (keys by owner uid) and {@code HistoryRing} (recent changes, the floor).
 *   <li>{@code IndexRestore}: an index rebuilt from a snapshot and its retained history.
 *   <li>{@code Entry}: one version of one key; {@code StoreKeys}: the sort order of keys; {@code
 *       Query}: what a list or watch selects; {@code PageToken}: where a listing goes on.
 *   <li>{@code BlindWriteRule}: what a blind write stores over what is stored.
 *   <li>{@code Fences}: a write's fence checked against the stored lease.
 *   <li>{@code AppliedRequests}: the request ids remembered to answer a repeated write.
 *   <li>{@code WatchHub} and {@code Subscription}: fan-out of committed changes to watchers.
 * </ul>
 */
package io.setpoint.storage.engine;
