package io.setpoint.controller;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Shards;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.loop.Locker;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard group: managers in separate processes that split the keys of their {@link
 * io.setpoint.controller.Placement#SHARDED SHARDED} controllers, each key handled by exactly one
 * live member. Build one with {@link Manager.Builder#sharding}.
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
 * manager.register(Controller.builder("invoices", INVOICE).placement(Placement.SHARDED)...build());
 * }</pre>
 */
public final class Sharding {
  private static final Logger log = LoggerFactory.getLogger(Sharding.class);
  /** The {@code group} of every shard-group heartbeat; its {@code key} is the group's name. */
  static final String GROUP = "shard-group";
  private static final Pattern LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  /** Released heartbeats unchanged for this many lease durations are deleted. */
  private static final int FORGET_AFTER_LEASES = 5;

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
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final SetpointClient client;
  private final Ticker ticker;
  private final Clock clock;
  private final LeaseCalls calls;
  private final Faults faults;
  private final ID id;
  private final SlotGate gate = new SlotGate();
  private volatile Listener listener;
  /** The fence of this membership; null while not a member. */
  private volatile Fence fence;
  /** The members whose split this member acts on and publishes, sorted. */
  private volatile List<String> adopted = List.of();
  /** The view the last successful renew published. */
  private volatile List<String> published = List.of();
  private volatile boolean closed;
  private final List<Thread> threads = new ArrayList<>();
  /** Orders opening slots against leaving, so that no slot opens for a membership that ended. */
  private final Object lock = new Object();
  /** Released to renew at once, publishing a newly adopted view. */
  private final Semaphore renewNow = new Semaphore(0);

  // The heartbeat thread's.
  private volatile Resource held;
  private long renewedAt;
  // The slots thread's.
  /** Each other member's heartbeat: its version last seen, and since when it has not changed. */
  private final Map<String, Observed> observed = new HashMap<>();

  private record Observed(String version, long since, boolean quiet) {}

  /** The other members with a live heartbeat, and those of them that have fallen quiet. */
  private record Group(Map<String, Lease> live, Set<String> quiet) {}

  private Sharding(Builder b, SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
    this.faults = faults;
    this.name = b.name;
    this.member = b.member;
    this.leaseDuration = b.leaseDuration;
    this.renewDeadline = b.renewDeadline;
    this.retryPeriod = b.retryPeriod;
    this.client = client;
    this.ticker = ticker;
    this.clock = clock;
    this.calls = new LeaseCalls(ticker);
    this.id = Ids.of(Types.LEASE, name + "-" + member);
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
    return fence != null;
  }

  /** The members whose split of the keys this member acts on, sorted; empty while not a member. */
  public List<String> members() {
    return adopted;
  }

  /** The hash ranges whose keys this member handles now. */
  public List<HashRange> ranges() {
    return ShardRing.ranges(gate.opened());
  }

  /** Whether this member handles the resource {@code id} now. */
  public boolean owns(ID id) {
    return gate.isOpen(ShardRing.slotOf(Shards.hash(id)));
  }

  /**
   * Whether this member handles the generic loop key whose text (as given to {@link #locker}) is
   * {@code keyText} now.
   */
  public boolean owns(String keyText) {
    return gate.isOpen(ShardRing.slotOf(Shards.hash(keyText)));
  }

  /** The fence of this membership, while a member. */
  public Optional<Fence> fence() {
    return Optional.ofNullable(fence);
  }

  /**
   * A {@link Locker} for a generic {@link io.setpoint.controller.loop.Loop} registered on the same
   * manager: the loop's instances in the group split its keys as the controllers do, by the shard
   * hash of {@code keyText} of each key. A key of another member is looked at again after a retry
   * period, so it is picked up when its slot moves here.
   */
  public <K> Locker<K> locker(Function<? super K, String> keyText) {
    Objects.requireNonNull(keyText, "keyText");
    return new Locker<>() {
      @Override
      public boolean tryAcquire(K key) {
        return fence != null && gate.enter(slot(key));
      }

      @Override
      public void release(K key, boolean gone) {
        gate.exit(slot(key));
      }

      @Override
      public Duration retryDelay() {
        return retryPeriod;
      }

      private int slot(K key) {
        return ShardRing.slotOf(Shards.hash(keyText.apply(key)));
      }
    };
  }

  SlotGate gate() {
    return gate;
  }

  void listener(Listener listener) {
    this.listener = listener;
  }

  /**
   * Joins the group and follows it, in two virtual threads: one keeps the heartbeat, the other
   * moves slots (which may wait for reconciles to finish or caches to fill, and must not delay a
   * renew).
   */
  synchronized void start() {
    if (threads.isEmpty() && !closed) {
      threads.add(Thread.ofVirtual().name("setpoint-shards-" + name + "-heartbeat").start(this::beat));
      threads.add(Thread.ofVirtual().name("setpoint-shards-" + name + "-slots").start(this::settle));
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
      gate.close(gate.opened());
      if (fence != null && held != null) {
        fence = null;
        calls.call(client.async().delete(held.getId(), held.getVersion()), ticker.read() + renewDeadline.toNanos());
        log.info("shard group {}: {} left", name, member);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      log.warn("shard group {}: could not delete the heartbeat of {}: {}", name, member, e.getMessage());
    }
  }

  /** The heartbeat: joins, renews every retry period (or at once when asked), leaves when it cannot. */
  private void beat() {
    while (!closed) {
      try {
        long now = ticker.read();
        if (fence == null) {
          join(now);
        } else {
          renew(now);
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        faults.caught(name, "shard heartbeat", "member " + member, e);
      }
      try {
        if (fence != null && ticker.read() - renewedAt >= renewDeadline.toNanos()) {
          leave("the heartbeat was not renewed within the renew deadline of " + renewDeadline);
        }
        calls.sleepUnless(renewNow, retryPeriod);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Moves slots toward the split of the live members, a step at a time. */
  private void settle() {
    while (!closed) {
      try {
        step();
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        faults.caught(name, "shard slots", "member " + member, e);
      }
      try {
        // Four looks per renew period: a silent member is noticed, and a change settles, within
        // a quarter of it.
        ticker.sleep(retryPeriod.dividedBy(4));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Reads the group and moves one step toward its split. */
  private void step() throws InterruptedException {
    Fence membership = fence;
    if (membership == null) {
      return;
    }
    Group group = group(ticker.read());
    Map<String, Lease> live = group.live();
    List<String> target = new ArrayList<>(live.keySet());
    target.add(member);
    target.sort(null);
    if (!target.equals(adopted)) {
      synchronized (lock) {
        if (fence != membership) {
          return;
        }
        BitSet lost = gate.opened();
        lost.andNot(ShardRing.owned(target, member));
        if (!lost.isEmpty()) {
          gate.close(lost);
          log.info("shard group {}: {} handed over {} slots (members {})", name, member, lost.cardinality(), target);
        }
        adopted = List.copyOf(target);
      }
      renewNow.release();
      Listener l = listener;
      if (l != null) {
        // The caches let go of what this member handed over and fill what it will gain while the
        // others adopt the same list, so the gained slots can open as soon as they have.
        l.prepare(cached(target, group.quiet()));
      }
      return;
    }
    Listener l = listener;
    if (l != null) {
      // Holds the slots of quiet members this member would gain, or lets them go once they speak.
      l.prefetch(cached(adopted, group.quiet()));
    }
    if (!published.equals(adopted)) {
      return;
    }
    for (Lease other : live.values()) {
      if (!other.getViewList().equals(adopted)) {
        return;
      }
    }
    BitSet owned = ShardRing.owned(adopted, member);
    BitSet gained = (BitSet) owned.clone();
    gained.andNot(gate.opened());
    if (gained.isEmpty()) {
      return;
    }
    if (l != null) {
      l.prepare(cached(adopted, group.quiet()));
    }
    synchronized (lock) {
      if (fence != membership || !adopted.equals(target)) {
        return;
      }
      gate.open(gained);
    }
    log.info("shard group {}: {} handles {} of {} slots (members {})", name, member, owned.cardinality(),
        ShardRing.SLOTS, adopted);
    return;
  }

  private void join(long now) throws InterruptedException {
    Optional<Resource> current = calls.find(client, id, now + renewDeadline.toNanos());
    Resource joined;
    try {
      if (current.isEmpty()) {
        joined = calls.call(client.async().create(Resource.newBuilder().setId(id)
            .setData(Any.pack(heartbeat(Lease.newBuilder(), 1, List.of()))).build()), now + renewDeadline.toNanos());
      } else {
        // Its own name: a former incarnation of this member, which the raised epoch fences.
        Lease lease = Leases.of(current.get());
        joined = calls.call(client.async().write(current.get().toBuilder()
            .setData(Any.pack(heartbeat(lease.toBuilder(), lease.getEpoch() + 1, List.of()))).build()),
            now + renewDeadline.toNanos());
      }
    } catch (SetpointException e) {
      if (e.isAlreadyExists() || e.isConflict()) {
        return;
      }
      throw e;
    }
    long epoch = Leases.of(joined).getEpoch();
    synchronized (lock) {
      held = joined;
      renewedAt = now;
      adopted = List.of();
      published = List.of();
      fence = Fence.newBuilder().setLease(id.getName()).setHolder(member).setEpoch(epoch).build();
    }
    log.info("shard group {}: {} joined (epoch {})", name, member, epoch);
    Listener l = listener;
    if (l != null) {
      l.membershipChanged();
    }
  }

  /** Renews the heartbeat with the view adopted now, which it then publishes. */
  private void renew(long sent) throws InterruptedException {
    Lease lease = Leases.of(held);
    List<String> view = adopted;
    try {
      held = calls.call(client.async().write(held.toBuilder()
          .setData(Any.pack(heartbeat(lease.toBuilder(), lease.getEpoch(), view))).build()),
          renewedAt + renewDeadline.toNanos());
    } catch (SetpointException e) {
      if (e.code() == Code.ABORTED || e.code() == Code.NOT_FOUND || e.code() == Code.FAILED_PRECONDITION) {
        leave("the heartbeat was evicted or removed: " + e.description());
        return;
      }
      throw e;
    }
    renewedAt = sent;
    published = view;
  }

  /** Stops every slot, then reports that this process is no longer a member. */
  private void leave(String why) throws InterruptedException {
    synchronized (lock) {
      fence = null;
      held = null;
      log.warn("shard group {}: {} leaves: {}", name, member, why);
      gate.close(gate.opened());
      adopted = List.of();
      published = List.of();
    }
    Listener l = listener;
    if (l != null) {
      l.membershipChanged();
    }
  }

  /**
   * The ranges this member's caches hold for the split of {@code members}: the slots it owns, and
   * those it would gain if the {@code quiet} members were evicted. A killed member's slots then open
   * as soon as it is evicted, instead of a cache fill later.
   */
  private List<HashRange> cached(List<String> members, Set<String> quiet) {
    BitSet slots = ShardRing.owned(members, member);
    if (!quiet.isEmpty()) {
      List<String> remaining = new ArrayList<>(members);
      remaining.removeAll(quiet);
      slots.or(ShardRing.owned(remaining, member));
    }
    return ShardRing.ranges(slots);
  }

  /**
   * The other members' heartbeats that are live now, by member, and which of them have not changed
   * for half a lease duration (a healthy member renews every retry period). Evicts those unchanged
   * for a lease duration and deletes released ones long unchanged.
   */
  private Group group(long now) throws InterruptedException {
    List<Resource> heartbeats = calls.call(client.async().listAll(ListRequest.newBuilder()
        .setType(Types.LEASE).setNamePrefix(name + "-").setConsistent(true).build()), now + renewDeadline.toNanos());
    Map<String, Lease> live = new HashMap<>();
    Set<String> quiet = new HashSet<>();
    Map<String, Observed> seen = new HashMap<>();
    for (Resource r : heartbeats) {
      Lease lease = Leases.of(r);
      if (!lease.getGroup().equals(GROUP) || !lease.getKey().equals(name) || r.getId().getName().equals(id.getName())) {
        continue;
      }
      Observed o = observed.get(r.getId().getName());
      if (o == null || !o.version().equals(r.getVersion())) {
        o = new Observed(r.getVersion(), now, false);
      }
      seen.put(r.getId().getName(), o);
      long unchanged = now - o.since();
      if (Leases.isReleased(lease)) {
        if (unchanged >= leaseDuration.toNanos() * FORGET_AFTER_LEASES) {
          forget(r, now);
        }
      } else if (unchanged >= leaseDuration.toNanos()) {
        evict(r, lease, now);
      } else {
        live.put(lease.getHolder(), lease);
        if (unchanged >= leaseDuration.toNanos() / 2) {
          quiet.add(lease.getHolder());
          if (!o.quiet()) {
            log.info("shard group {}: {} has not heard from {} for {} ms; caching the slots it would gain",
                name, member, lease.getHolder(), unchanged / 1_000_000);
            o = new Observed(o.version(), o.since(), true);
            seen.put(r.getId().getName(), o);
          }
        }
      }
    }
    observed.clear();
    observed.putAll(seen);
    return new Group(live, quiet);
  }

  /** Marks a silent member's heartbeat released: it is out, and its fenced writes are refused. */
  private void evict(Resource heartbeat, Lease lease, long now) throws InterruptedException {
    try {
      calls.call(client.async().write(heartbeat.toBuilder()
          .setData(Any.pack(lease.toBuilder().setExpiresAt(lease.getRenewedAt()).build())).build()),
          now + renewDeadline.toNanos());
      log.warn("shard group {}: {} evicted {}, silent for {}", name, member, lease.getHolder(), leaseDuration);
    } catch (SetpointException e) {
      if (!e.isConflict() && !e.isNotFound()) {
        throw e;
      }
      // It renewed meanwhile, or another member evicted it first: the next step reads it afresh.
    }
  }

  private void forget(Resource heartbeat, long now) throws InterruptedException {
    try {
      calls.call(client.async().delete(heartbeat.getId(), heartbeat.getVersion()), now + renewDeadline.toNanos());
    } catch (SetpointException e) {
      if (!e.isConflict() && !e.isNotFound()) {
        throw e;
      }
    }
  }

  private Lease heartbeat(Lease.Builder lease, long epoch, List<String> view) {
    Instant now = clock.instant();
    return lease.setGroup(GROUP).setKey(name).setHolder(member).setEpoch(epoch)
        .clearView().addAllView(view)
        .setRenewedAt(Leases.timestamp(now)).setExpiresAt(Leases.timestamp(now.plus(leaseDuration))).build();
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
      this.leaseDuration = LeaseCalls.positive("leaseDuration", leaseDuration);
      return this;
    }

    /**
     * How long a member keeps its keys without a successful renew (default 10 s); shorter than the
     * lease duration.
     */
    public Builder renewDeadline(Duration renewDeadline) {
      this.renewDeadline = LeaseCalls.positive("renewDeadline", renewDeadline);
      return this;
    }

    /** How often a member renews its heartbeat (default 2 s); it reads the group four times as often. */
    public Builder retryPeriod(Duration retryPeriod) {
      this.retryPeriod = LeaseCalls.positive("retryPeriod", retryPeriod);
      return this;
    }

    /** Checks that the timings nest: retry period, then renew deadline, then lease duration. */
    void check() {
      LeaseCalls.checkTimings(leaseDuration, renewDeadline, retryPeriod);
    }

    Sharding build(SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
      check();
      return new Sharding(this, client, ticker, clock, faults);
    }
  }
}
