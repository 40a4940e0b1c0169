package io.setpoint.controller.loop;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Decides which instance of a loop may handle a key, so that no key is handled by two instances at
 * once. Within one instance the work queue already guarantees one handling per key at a time; a
 * locker matters when several instances (processes) run the same loop over the same keys.
 *
 * <p>The loop calls {@link #tryAcquire} before fetching and handling a key, and {@link #release}
 * after. A refused key is not dropped: it is queued again after {@link #retryDelay()}, so the
 * instance takes it over when the holder goes away.
 *
 * <p>Two implementations: {@link #inMemory()} (the default; one process) and {@link #lease} (leases
 * stored in a Setpoint server, shared by every instance that talks to it).
 *
 * @param <K> the key type
 */
public interface Locker<K> extends AutoCloseable {

  /**
   * True if this instance may handle {@code key} now; it then holds the key until {@link
   * #release}. False if another instance holds it. Throwing counts as a failed handling.
   */
  boolean tryAcquire(K key) throws Exception;

  /**
   * The handling of {@code key} ended. {@code gone} is true when the handler saw the key absent and
   * succeeded, so a shared locker can drop its record of the key. A shared locker may keep the key
   * assigned to this instance afterwards (a {@linkplain #lease lease locker} does), so that
   * instances split the keys between them instead of each handling every key.
   */
  void release(K key, boolean gone) throws Exception;

  /** How long a refused key waits before this instance tries it again; default 1 s. */
  default Duration retryDelay() {
    return Duration.ofSeconds(1);
  }

  /**
   * Calls {@code listener} with what failed and why whenever work the locker does in the background
   * fails (a lease locker: renewing its heartbeat), so that the loop counts it among its faults.
   * The loop sets it before it starts; the default locker has no background work.
   */
  default void onFault(BiConsumer<String, Throwable> listener) {}

  /** Gives up everything this instance holds; called when the loop stops. Does nothing by default. */
  @Override
  default void close() {}

  /** A lock per key in this process's memory: the default, for a loop that runs in one instance. */
  static <K> Locker<K> inMemory() {
    return new InMemoryLocker<>();
  }

  /**
   * Starts building a locker backed by {@code core.v1.Lease} resources in {@code client}'s server,
   * with which several instances (processes) of the same loop split its keys: each key is handled
   * by one instance at a time, and stays with it while it lives; when an instance stops, or fails
   * and its heartbeat expires, the others take its keys over. Instances never rebalance: a new
   * instance gets keys when others stop.
   *
   * <p>Caveats, as with every lease: an instance that stalls longer than the lease duration (a long
   * pause, a partition) may find its keys taken over while it still handles one; keep the loop's
   * handle timeout well below half the duration. Clocks of the instances should agree to within a
   * small part of the duration.
   *
   * <pre>{@code
   * Locker<String> locker = Locker.<String>lease(client, "inventory")
   *     .duration(Duration.ofSeconds(15))
   *     .build();
   * Loop<String, Item> loop = Loop.named("inventory")...locker(locker).build();
   * }</pre>
   *
   * @param group the keys' group, typically the loop's name: instances with the same group share
   */
  static <K> LeaseBuilder<K> lease(SetpointClient client, String group) {
    return new LeaseBuilder<>(client, group);
  }

  /**
   * Configures a {@linkplain Locker#lease lease locker}.
   *
   * @param <K> the key type; {@link #keyText} turns keys into the text the leases record
   */
  final class LeaseBuilder<K> {
    final SetpointClient client;
    final String group;
    String holder = HexFormat.of().formatHex(randomBytes());
    Duration duration = Duration.ofSeconds(15);
    Clock clock = Clock.systemUTC();
    Ticker ticker = Ticker.system();
    Function<? super K, String> keyText = String::valueOf;

    private LeaseBuilder(SetpointClient client, String group) {
      this.client = Objects.requireNonNull(client, "client");
      if (group == null || group.isBlank()) {
        throw new IllegalArgumentException("a lease group must not be blank");
      }
      this.group = group;
    }

    /** How long a heartbeat counts after its renewal (default 15 s); renewed every third of it. */
    public LeaseBuilder<K> duration(Duration duration) {
      Objects.requireNonNull(duration, "duration");
      if (duration.compareTo(Duration.ofMillis(30)) < 0) {
        throw new IllegalArgumentException("a lease duration under 30 ms cannot be renewed in time: " + duration);
      }
      this.duration = duration;
      return this;
    }

    /** The clock of renewals and expiry (default system UTC). */
    public LeaseBuilder<K> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** What times the heartbeat's renewals (default the system's). */
    public LeaseBuilder<K> ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How a key is written into its lease and hashed into its name (default {@code toString}). */
    public LeaseBuilder<K> keyText(Function<? super K, String> keyText) {
      this.keyText = Objects.requireNonNull(keyText, "keyText");
      return this;
    }

    /**
     * This instance's holder id, as the leases record it (default: 20 random hex digits): lower-case
     * letters, digits and dashes, at most 24 characters.
     */
    public LeaseBuilder<K> holder(String holder) {
      if (holder == null || !holder.matches("[a-z0-9]([-a-z0-9]{0,22}[a-z0-9])?")) {
        throw new IllegalArgumentException("a holder id is 1-24 of [a-z0-9-], not starting or ending with '-': " + holder);
      }
      this.holder = holder;
      return this;
    }

    /** The locker; it writes its heartbeat on the first acquire. */
    public Locker<K> build() {
      return new LeaseLocker<>(this);
    }

    private static byte[] randomBytes() {
      byte[] bytes = new byte[10];
      ThreadLocalRandom.current().nextBytes(bytes);
      return bytes;
    }
  }
}
