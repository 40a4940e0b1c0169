package io.setpoint.controller;

import io.setpoint.api.Shards;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.loop.Locker;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard group: managers in separate processes that split the keys of their {@link
 * Controller.Placement#SHARDED SHARDED} controllers, each key handled by exactly one live member.
 * Build one with {@link Manager.Builder#sharding}.
 *
 * <p>Each member keeps a heartbeat {@code core.v1.Lease} (named {@code GROUP-MEMBER}) and renews it
 * every {@linkplain Builder#retryPeriod retry period}. The hash space of {@link Shards#hash} is cut
 * into 1,024 slots, and every member computes the same owner for each slot from the list of live
 * members (rendezvous hashing): when a member joins it takes about 1/N of the slots, and when one
 * leaves only its slots move. A member whose heartbeat has not changed for a {@linkplain
 * Builder#leaseDuration lease duration} is evicted (its lease marked released) and its slots go to
 * the others; a member that cannot renew within the {@linkplain Builder#renewDeadline renew
 * deadline} stops everything before that can happen. Once a member's heartbeat has not changed for
 * half a lease duration, the others start filling their caches with the slots they would gain from
 * it, so those slots open as soon as it is evicted; they let that go if it renews.
 *
 * <p>Hand-over: each heartbeat publishes the member list its holder acts on. On a change a member
 * first stops the slots it loses, waiting for their reconciles in flight, and only then publishes
 * the new list; it starts the slots it gains only when every live member publishes the same list.
 * So a key's old owner has finished with it before its new owner starts. The writes of sharded
 * controllers are {@linkplain SetpointClient#fenced fenced} with the member's heartbeat: once a
 * member is evicted, the server refuses its writes even if the process resumes from a pause.
 *
 * <p>Each member's cache of a sharded controller's managed type holds only its own slots (the
 * server filters the watch by hash range), unless another controller of the manager needs the
 * whole type.
 *
 * <pre>{@code
 * Manager manager = Manager.builder()
 *     .client(SetpointClient.connect("localhost:8500"))
 *     .sharding(Sharding.named("billing").member("billing-1"))
 *     .build();
 * manager.register(Controller.forType(INVOICE).named("invoices").placement(Placement.SHARDED)...);
 * }</pre>
 */
public final class Sharding {
  private static final Logger log = LoggerFactory.getLogger(Sharding.class);
  /** The {@code group} of every shard-group heartbeat; its {@code key} is the group's name. */
  static final String GROUP = "shard-group";
  private static final Pattern LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  /** What the manager does when the slots or the membership change. */
  interface Listener {
    /**
     * Makes the caches of sharded types hold {@code ranges}: the slots this member owns, or will
     * own once the group agrees; never fewer than the slots open.
     */
    void prepare(List<HashRange> ranges) throws InterruptedException;

    /** Starts making the caches of sharded types hold {@code ranges}, without waiting for them. */
    void prefetch(List<HashRange> ranges);

    /** This member joined or left the group. */
    void membershipChanged();
  }

  private final String name;
  private final String member;
  private final Duration retryPeriod;
  private final ShardMembership membership;
  private final ShardHeartbeat heartbeat;
  private final ShardHandover handover;
  private volatile boolean closed;
  private final List<Thread> threads = new ArrayList<>();

  private Sharding(Builder b, SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
    this.name = b.name;
    this.member = b.member;
    this.retryPeriod = b.retryPeriod;
    LeaseTimings timings = b.timings();
    LeaseCalls calls = new LeaseCalls(client, ticker);
    this.membership = new ShardMembership(name, member);
    this.heartbeat = new ShardHeartbeat(calls, ticker, clock, timings, name, member, faults, membership);
    this.handover = new ShardHandover(name, member, ticker, b.retryPeriod, faults, membership,
        new ShardGroupView(calls, timings, name, member), heartbeat);
  }

  /** Starts configuring the shard group {@code name} (a DNS label). */
  public static Builder named(String name) {
    return new Builder(name);
  }

  /** The group's name. */
  public String name() {
    return name;
  }

  /** This member's name, unique in the group. */
  public String member() {
    return member;
  }

  /** Whether this manager is a member now (its heartbeat is current). */
  public boolean isMember() {
    return membership.fence() != null;
  }

  /** The members whose split of the keys this member acts on, sorted; empty while not a member. */
  public List<String> members() {
    return membership.adopted();
  }

  /** The hash ranges whose keys this member handles now. */
  public List<HashRange> ranges() {
    return ShardRing.ranges(membership.gate().opened());
  }

  /** Whether this member handles the resource {@code id} now. */
  public boolean owns(ID id) {
    return membership.gate().isOpen(ShardRing.slotOf(Shards.hash(id)));
  }

  /**
   * Whether this member handles the generic loop key whose text (as given to {@link #locker}) is
   * {@code keyText} now.
   */
  public boolean owns(String keyText) {
    return membership.gate().isOpen(ShardRing.slotOf(Shards.hash(keyText)));
  }

  /** The fence of this membership, while a member. */
  public Optional<Fence> fence() {
    return Optional.ofNullable(membership.fence());
  }

  /**
   * A {@link Locker} for a generic {@link io.setpoint.controller.loop.Loop} registered on the same
   * manager: the loop's instances in the group split its keys as the controllers do, by the shard
   * hash of {@code keyText} of each key. A key of another member is looked at again after a retry
   * period, so it is picked up when its slot moves here.
   */
  public <K> Locker<K> locker(Function<? super K, String> keyText) {
    return new ShardLocker<>(membership, Objects.requireNonNull(keyText, "keyText"), retryPeriod);
  }

  SlotGate gate() {
    return membership.gate();
  }

  void listener(Listener listener) {
    membership.listener(listener);
  }

  /**
   * Joins the group and follows it, in two virtual threads: one keeps the heartbeat, the other
   * moves slots (which may wait for reconciles to finish or caches to fill, and must not delay a
   * renew).
   */
  synchronized void start() {
    if (threads.isEmpty() && !closed) {
      threads.add(Thread.ofVirtual().name("setpoint-shards-" + name + "-heartbeat").start(() -> heartbeat.run(() -> closed)));
      threads.add(Thread.ofVirtual().name("setpoint-shards-" + name + "-slots").start(() -> handover.run(() -> closed)));
    }
  }

  /**
   * Leaves the group: stops handling every slot and deletes the heartbeat, so the others take the
   * slots over at once. The manager calls it after stopping its controllers.
   */
  void close() {
    List<Thread> running;
    synchronized (this) {
      closed = true;
      running = List.copyOf(threads);
    }
    running.forEach(Thread::interrupt);
    for (Thread t : running) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      heartbeat.leave();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      log.warn("shard group {}: could not delete the heartbeat of {}: {}", name, member, e.getMessage());
    }
  }

  /**
   * Configures a {@link Sharding}; hand it to {@link Manager.Builder#sharding}, which builds it with
   * the manager's client, ticker and clock.
   */
  public static final class Builder {
    private final String name;
    private String member = LeaseCalls.processName(30);
    private Duration leaseDuration = Duration.ofSeconds(15);
    private Duration renewDeadline = Duration.ofSeconds(10);
    private Duration retryPeriod = Duration.ofSeconds(2);

    private Builder(String name) {
      if (!LABEL.matcher(Objects.requireNonNull(name, "name")).matches() || name.length() > 30) {
        throw new IllegalArgumentException("shard group name " + name
            + " must be 1 to 30 of [-a-z0-9], starting and ending with a letter or digit");
      }
      this.name = name;
    }

    /**
     * This process's name in the group (default: host name, process id and a random suffix); 1 to
     * 32 of [-a-z0-9], unique in the group. A stable name (a pod's, a host's) lets a restarted
     * process take its former heartbeat back at once.
     */
    public Builder member(String member) {
      if (!LABEL.matcher(Objects.requireNonNull(member, "member")).matches() || member.length() > 32) {
        throw new IllegalArgumentException("member " + member
            + " must be 1 to 32 of [-a-z0-9], starting and ending with a letter or digit");
      }
      this.member = member;
      return this;
    }

    /** How long a heartbeat goes unrenewed before the others take the member's keys (default 15 s). */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = LeaseTimings.positive("leaseDuration", leaseDuration);
      return this;
    }

    /**
     * How long a member keeps its keys without a successful renew (default 10 s); shorter than the
     * lease duration.
     */
    public Builder renewDeadline(Duration renewDeadline) {
      this.renewDeadline = LeaseTimings.positive("renewDeadline", renewDeadline);
      return this;
    }

    /** How often a member renews its heartbeat (default 2 s); it reads the group four times as often. */
    public Builder retryPeriod(Duration retryPeriod) {
      this.retryPeriod = LeaseTimings.positive("retryPeriod", retryPeriod);
      return this;
    }

    /** Checks that the timings nest: retry period, then renew deadline, then lease duration. */
    void check() {
      timings();
    }

    private LeaseTimings timings() {
      return new LeaseTimings(leaseDuration, renewDeadline, retryPeriod);
    }

    Sharding build(SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
      return new Sharding(this, client, ticker, clock, faults);
    }
  }
}
