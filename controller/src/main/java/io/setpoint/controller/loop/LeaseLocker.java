package io.setpoint.controller.loop;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
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
  private final String groupHash;
  private final Set<K> held = ConcurrentHashMap.newKeySet();

  private final Object lifecycle = new Object();
  private Thread renewer; // non-null while started
  private ID heartbeat; // with its uid, once written
  private volatile Instant renewedAt = Instant.MIN;

  private LeaseLocker(Builder<K> b) {
    this.client = b.client;
    this.group = b.group;
    this.holder = b.holder;
    this.duration = b.duration;
    this.clock = b.clock;
    this.keyText = b.keyText;
    this.groupHash = sha256(group).substring(0, 16);
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
    ID own = ensureStarted();
    if (!fresh()) {
      // Our heartbeat is not being renewed: others may be taking our keys over. Hands off.
      return false;
    }
    ID id = keyLease(key);
    Optional<Resource> current = client.findConsistent(id);
    if (current.isEmpty()) {
      return create(key, id, own);
    }
    Resource resource = current.get();
    Lease lease = decode(resource);
    if (lease.getHolder().equals(holder)) {
      held.add(key);
      return true;
    }
    if (alive(lease.getHolder())) {
      return false;
    }
    try {
      client.write(resource.toBuilder()
          .setData(Any.pack(lease.toBuilder().setHolder(holder).setRenewedAt(timestamp(clock.instant())).build()))
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
  public Duration retryDelay() {
    return duration.dividedBy(3);
  }

  /** Gives up every key this instance holds and expires its heartbeat, so others take over now. */
  @Override
  public void close() {
    Thread toStop;
    ID own;
    synchronized (lifecycle) {
      toStop = renewer;
      own = heartbeat;
      renewer = null;
      heartbeat = null;
      renewedAt = Instant.MIN;
    }
    if (toStop == null) {
      return;
    }
    toStop.interrupt();
    try {
      for (K key : held) {
        deleteIfOurs(keyLease(key));
      }
      held.clear();
      Resource expired = writeHeartbeat(clock.instant(), Duration.ZERO);
      // The heartbeat owns the key leases it created; delete it only when it owns none.
      if (client.listByOwner(expired.getId()).isEmpty()) {
        client.delete(expired.getId(), expired.getVersion());
      }
    } catch (RuntimeException e) {
      log.warn("lease holder {} of {} could not release its leases; they expire after {}",
          holder, group, duration, e);
    }
    log.debug("lease holder {} of {} closed ({})", holder, group, own);
  }

  @Override
  public String toString() {
    return "LeaseLocker[" + group + ", holder " + holder + ", " + held.size() + " held]";
  }

  // --- internals -------------------------------------------------------------------------------

  private ID ensureStarted() {
    synchronized (lifecycle) {
      if (renewer == null) {
        heartbeat = renew().getId();
        renewer = Thread.ofVirtual().name("setpoint-lease-" + holder).start(this::renewLoop);
      }
      return heartbeat;
    }
  }

  private void renewLoop() {
    while (true) {
      try {
        Thread.sleep(duration.dividedBy(3));
      } catch (InterruptedException e) {
        return;
      }
      try {
        renew();
      } catch (RuntimeException e) {
        log.warn("lease holder {} of {} failed to renew its heartbeat", holder, group, e);
      }
    }
  }

  private Resource renew() {
    Instant now = clock.instant();
    Resource written = writeHeartbeat(now, duration);
    renewedAt = now;
    return written;
  }

  private Resource writeHeartbeat(Instant now, Duration validFor) {
    Lease beat = Lease.newBuilder()
        .setGroup(group)
        .setHolder(holder)
        .setRenewedAt(timestamp(now))
        .setExpiresAt(timestamp(now.plus(validFor)))
        .build();
    // Only this instance writes its heartbeat, so a blind write is safe.
    return client.write(Resource.newBuilder().setId(heartbeatId(holder)).setData(Any.pack(beat)).build());
  }

  /** Whether our own heartbeat was renewed recently enough for no one to think it expired. */
  private boolean fresh() {
    return clock.instant().isBefore(renewedAt.plus(duration.dividedBy(2)));
  }

  private boolean alive(String other) {
    Optional<Resource> beat = client.findConsistent(heartbeatId(other));
    if (beat.isEmpty()) {
      return false;
    }
    Timestamp expires = decode(beat.get()).getExpiresAt();
    return clock.instant().isBefore(Instant.ofEpochSecond(expires.getSeconds(), expires.getNanos()));
  }

  private boolean create(K key, ID id, ID own) {
    Lease lease = Lease.newBuilder().setGroup(group).setKey(keyText.apply(key)).setHolder(holder)
        .setRenewedAt(timestamp(clock.instant())).build();
    try {
      // Owned by our heartbeat: if another instance created the lease meanwhile, its owner differs
      // and the server refuses this write, since an owner never changes.
      Resource stored = client.write(Resource.newBuilder().setId(id).setOwner(own).setData(Any.pack(lease)).build());
      if (decode(stored).getHolder().equals(holder)) {
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
      if (decode(resource).getHolder().equals(holder)) {
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

  private ID heartbeatId(String holderId) {
    return Ids.of(Types.LEASE, "h-" + groupHash + "-" + holderId);
  }

  private static Lease decode(Resource resource) {
    try {
      return resource.getData().unpack(Lease.class);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(Ids.format(resource.getId()) + " is not a core.v1.Lease", e);
    }
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
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
