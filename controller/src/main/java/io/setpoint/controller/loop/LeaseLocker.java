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
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Locker#lease}: a locker on {@code core.v1.Lease} resources in a Setpoint server.
 *
 * <p>Each instance writes a <em>heartbeat</em> lease and renews it every third of the {@linkplain
 * Locker.LeaseBuilder#duration lease duration}. A key's lease names the instance that holds it. An
 * instance acquires a key by creating its lease, or by taking over, with a compare-and-swap on the
 * resource version, a lease whose holder's heartbeat has expired (judged against the {@linkplain
 * Locker.LeaseBuilder#clock clock}). Creation cannot race: a key lease is owned by its creator's
 * heartbeat, and the owner of a resource cannot change, so of two instances creating the same lease
 * only one write is accepted. A stopping instance deletes its key leases and expires its heartbeat,
 * so its keys move at once.
 *
 * @param <K> the key type
 */
final class LeaseLocker<K> implements Locker<K> {
  private static final Logger log = LoggerFactory.getLogger(LeaseLocker.class);

  private final SetpointClient client;
  private final String group;
  private final String holder;
  private final Duration duration;
  private final Clock clock;
  private final Function<? super K, String> keyText;
  private final Heartbeat heartbeat;
  private final Set<K> held = ConcurrentHashMap.newKeySet();

  LeaseLocker(Locker.LeaseBuilder<K> b) {
    this.client = b.client;
    this.group = b.group;
    this.holder = b.holder;
    this.duration = b.duration;
    this.clock = b.clock;
    this.keyText = b.keyText;
    this.heartbeat = new Heartbeat(client, group, holder, "h-" + sha256(group).substring(0, 16) + "-", duration,
        clock, b.ticker);
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
}
