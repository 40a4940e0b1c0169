package io.setpoint.controller.loop;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Leases;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Locker} backed by {@code core.v1.Lease} resources in a Setpoint server, so that several
 * instances (processes) of the same loop split its keys: each key is handled by one instance at a
 * time, and stays with it while it lives; when an instance stops, or fails and its lease expires,
 * the others take its keys over.
 *
 * <p>How: each instance writes a <em>heartbeat</em> lease and renews it every third of the {@link
 * Builder#duration lease duration}. A key's lease names the instance that holds it. An instance
 * acquires a key by creating its lease, or by taking over, with a compare-and-swap on the
 * resource version, a lease whose holder's heartbeat has expired (judged against the {@link
 * Builder#clock clock}). Creation cannot race: a key lease is owned by its creator's heartbeat, and
 * the owner of a resource cannot change, so of two instances creating the same lease only one
 * write is accepted. A stopping instance deletes its key leases and expires its heartbeat, so its
 * keys move at once.
 *
 * <p>Caveats, as with every lease: an instance that stalls longer than the lease duration (a long
 * pause, a partition) may find its keys taken over while it still handles one; keep the loop's
 * handle timeout well below half the duration. Clocks of the instances should agree to within a
 * small part of the duration. Instances never rebalance: a new instance gets keys when others stop.
 *
 * <pre>{@code
 * Locker<String> locker = LeaseLocker.<String>builder(client, "inventory")
 *     .duration(Duration.ofSeconds(15))
 *     .build();
 * Loop<String, Item> loop = Loop.named("inventory")...locker(locker).build();
 * }</pre>
 *
 * @param <K> the key type; {@link Builder#keyText} turns keys into the text the leases record
 */
public final class LeaseLocker<K> implements Locker<K> {
  private static final Logger log = LoggerFactory.getLogger(LeaseLocker.class);

  private final SetpointClient client;
  private final String group;
  private final String holder;
  private final Duration duration;
  private final Clock clock;
  private final Function<? super K, String> keyText;
  private final Heartbeat heartbeat;
  private final Set<K> held = ConcurrentHashMap.newKeySet();

  private LeaseLocker(Builder<K> b) {
    this.client = b.client;
    this.group = b.group;
    this.holder = b.holder;
    this.duration = b.duration;
    this.clock = b.clock;
    this.keyText = b.keyText;
    this.heartbeat = new Heartbeat(client, group, holder, "h-" + sha256(group).substring(0, 16) + "-", duration,
        clock, b.ticker);
  }

  /** A locker for the keys of {@code group} (typically the loop's name), leased from {@code client}'s server. */
  public static <K> Builder<K> builder(SetpointClient client, String group) {
    return new Builder<>(client, group);
  }

  /** This instance's holder id, as the leases record it. */
  public String holder() {
    return holder;
  }

  @Override
  public boolean tryAcquire(K key) throws InterruptedException {
    ID own = heartbeat.ensureStarted();
    if (!heartbeat.fresh()) {
      // Our heartbeat is not being renewed: others may be taking our keys over. Hands off.
      return false;
    }
    ID id = keyLease(key);
    Optional<Resource> current = client.findConsistent(id);
    if (current.isEmpty()) {
      return create(key, id, own);
    }
    Resource resource = current.get();
    Lease lease = Leases.of(resource);
    if (lease.getHolder().equals(holder)) {
      held.add(key);
      return true;
    }
    if (heartbeat.alive(lease.getHolder())) {
      return false;
    }
    try {
      client.write(resource.toBuilder()
          .setData(Any.pack(lease.toBuilder().setHolder(holder).setRenewedAt(Leases.timestamp(clock.instant())).build()))
          .build());
      log.info("lease of {} in {} taken over from {} (its heartbeat expired) by {}",
          lease.getKey(), group, lease.getHolder(), holder);
      held.add(key);
      return true;
    } catch (SetpointException e) {
      if (lost(e)) {
        return false; // another instance took it over first
      }
      throw e;
    }
  }

  @Override
  public void release(K key, boolean gone) {
    if (!gone) {
      return; // the key stays ours while we live: instances split keys rather than share each one
    }
    held.remove(key);
    deleteIfOurs(keyLease(key));
  }

  /** A third of the lease duration: a refused key is tried again soon after its holder expires. */
  @Override
  public void onFault(BiConsumer<String, Throwable> listener) {
    heartbeat.onFault(listener);
  }

  @Override
  public Duration retryDelay() {
    return duration.dividedBy(3);
  }

  /** Gives up every key this instance holds and expires its heartbeat, so others take over now. */
  @Override
  public void close() {
    heartbeat.stop(() -> {
      for (K key : held) {
        deleteIfOurs(keyLease(key));
      }
      held.clear();
    });
    log.debug("lease holder {} of {} closed", holder, group);
  }

  @Override
  public String toString() {
    return "LeaseLocker[" + group + ", holder " + holder + ", " + held.size() + " held]";
  }

  // --- internals -------------------------------------------------------------------------------

  private boolean create(K key, ID id, ID own) {
    Lease lease = Lease.newBuilder().setGroup(group).setKey(keyText.apply(key)).setHolder(holder)
        .setRenewedAt(Leases.timestamp(clock.instant())).build();
    try {
      // Owned by our heartbeat: if another instance created the lease meanwhile, its owner differs
      // and the server refuses this write, since an owner never changes.
      Resource stored = client.write(Resource.newBuilder().setId(id).setOwner(own).setData(Any.pack(lease)).build());
      if (Leases.of(stored).getHolder().equals(holder)) {
        held.add(key);
        return true;
      }
      return false;
    } catch (SetpointException e) {
      if (e.code() == Code.INVALID_ARGUMENT || lost(e)) {
        return false;
      }
      throw e;
    }
  }

  private void deleteIfOurs(ID id) {
    client.findConsistent(id).ifPresent(resource -> {
      if (Leases.of(resource).getHolder().equals(holder)) {
        try {
          client.delete(resource.getId(), resource.getVersion());
        } catch (SetpointException e) {
          if (!lost(e)) {
            throw e;
          }
        }
      }
    });
  }


  private static boolean lost(SetpointException e) {
    return e.code() == Code.ABORTED || e.code() == Code.NOT_FOUND || e.code() == Code.FAILED_PRECONDITION;
  }

  private ID keyLease(K key) {
    return Ids.of(Types.LEASE, "k-" + sha256(group + "\n" + keyText.apply(key)).substring(0, 40));
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /**
   * Configures a {@link LeaseLocker}.
   *
   * @param <K> the key type
   */
  public static final class Builder<K> {
    private final SetpointClient client;
    private final String group;
    private String holder;
    private Duration duration = Duration.ofSeconds(15);
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private Function<? super K, String> keyText = String::valueOf;

    private Builder(SetpointClient client, String group) {
      this.client = Objects.requireNonNull(client, "client");
      if (group == null || group.isBlank()) {
        throw new IllegalArgumentException("a lease group must not be blank");
      }
      this.group = group;
      this.holder = HexFormat.of().formatHex(randomBytes());
    }

    /** How long a heartbeat counts after its renewal (default 15 s); renewed every third of it. */
    public Builder<K> duration(Duration duration) {
      Objects.requireNonNull(duration, "duration");
      if (duration.compareTo(Duration.ofMillis(30)) < 0) {
        throw new IllegalArgumentException("a lease duration under 30 ms cannot be renewed in time: " + duration);
      }
      this.duration = duration;
      return this;
    }

    /** The clock of renewals and expiry (default system UTC). */
    public Builder<K> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** What times the heartbeat's renewals (default the system's). */
    public Builder<K> ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How a key is written into its lease and hashed into its name (default {@code toString}). */
    public Builder<K> keyText(Function<? super K, String> keyText) {
      this.keyText = Objects.requireNonNull(keyText, "keyText");
      return this;
    }

    /**
     * This instance's holder id (default: 20 random hex digits): lower-case letters, digits and
     * dashes, at most 24 characters.
     */
    public Builder<K> holder(String holder) {
      if (holder == null || !holder.matches("[a-z0-9]([-a-z0-9]{0,22}[a-z0-9])?")) {
        throw new IllegalArgumentException("a holder id is 1-24 of [a-z0-9-], not starting or ending with '-': " + holder);
      }
      this.holder = holder;
      return this;
    }

    /** The locker; it writes its heartbeat on the first acquire. */
    public LeaseLocker<K> build() {
      return new LeaseLocker<>(this);
    }

    private static byte[] randomBytes() {
      byte[] bytes = new byte[10];
      ThreadLocalRandom.current().nextBytes(bytes);
      return bytes;
    }
  }
}
