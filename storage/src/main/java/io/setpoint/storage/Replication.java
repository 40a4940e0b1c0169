package io.setpoint.storage;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * What a replicated {@link Backend} adds: its members, which of them leads, and moving leadership.
 * The agent looks for it on its backend to run SINGLETON controllers only where the store leads and
 * to answer the operator API; a backend without replication (the memory store) does not implement
 * it.
 */
public interface Replication {
  /**
   * One member of the cluster, as the member asked knows it. The leader knows every member's
   * position and when it last heard from each; a follower knows only its own and the leader's.
   *
   * @param index the last log index the member is known to hold committed (for the member asked:
   *     the last it applied); empty when unknown
   * @param lastContact how long since the member asked last heard from it (zero for itself); empty
   *     when unknown
   * @param unreachable not heard from for longer than an election timeout: down, cut off, or
   *     stopped
   */
  record Member(
      String name,
      String address,
      boolean leader,
      OptionalLong index,
      Optional<Duration> lastContact,
      boolean unreachable) {}

  /**
   * This member's Raft positions and activity.
   *
   * @param term the current term
   * @param commitIndex the last log index this member knows committed
   * @param appliedIndex the last log index this member applied to its store
   * @param leaderChanges leader changes this member has seen since it started
   * @param snapshots snapshots this member has taken since it started
   * @param snapshotTime the time those snapshots took, together
   * @param logSync how long writing the Raft log to disk (its fsync) takes here
   */
  record RaftStatus(
      long term,
      long commitIndex,
      long appliedIndex,
      long leaderChanges,
      long snapshots,
      Duration snapshotTime,
      LogSync logSync) {}

  /**
   * The Raft log's syncs to disk on this member: how many since it started, and the median, 99th
   * percentile and longest of the recent ones (Ratis's own timer, which favours the last minutes).
   */
  record LogSync(long count, Duration median, Duration p99, Duration max) {
    /** No sync yet, or a log that does not say. */
    public static final LogSync NONE = new LogSync(0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
  }

  /** This member's node name. */
  String nodeName();

  /** Every member, as this member knows them (the leader flag may lag during an election). */
  List<Member> members();

  /** This member's Raft positions and activity now; zeros while its Raft division is down. */
  RaftStatus status();

  /** True while this member leads and has applied every earlier entry. */
  boolean isLeader();

  /**
   * Tells {@code listener} whether this member leads, now and on every change, until the returned
   * handle is closed.
   */
  AutoCloseable onLeadershipChange(Consumer<Boolean> listener);

  /**
   * Moves leadership to the member {@code to} (empty: any other member) and waits up to {@code
   * timeout} for it to lead.
   *
   * @return the name of the member that leads afterwards
   * @throws StorageException {@code NOT_FOUND} for an unknown member, {@code UNAVAILABLE} when the
   *     transfer did not complete in time
   */
  String transferLeadership(String to, Duration timeout);

  /**
   * Adds the member {@code name}, whose Raft address is {@code address}, and returns once the
   * cluster committed it: the leader first brings it up to date (by snapshot when it is far
   * behind), so that it counts in a majority only once it holds the log.
   *
   * <p>When {@code name} is a member at that address already, nothing changes, unless {@code
   * lostItsData} (a member restarted on a new data directory): it is then removed and added again
   * as a new member, because a member that forgot what it acknowledged must not vote on it.
   *
   * @return the members afterwards, as this member knows them
   * @throws IllegalArgumentException when {@code name} is a member at another address
   * @throws StorageException {@code UNAVAILABLE} when the change did not complete in time (it may
   *     still take effect: list the members)
   */
  List<Member> addMember(String name, String address, boolean lostItsData, Duration timeout);

  /**
   * Removes the member {@code name} and returns once the cluster committed that. When it leads,
   * leadership moves to another member first. The member removed stops hearing from the cluster;
   * stop its agent.
   *
   * @return the members afterwards, as this member knows them
   * @throws IllegalArgumentException when {@code name} is the only member
   * @throws StorageException {@code NOT_FOUND} for an unknown member, {@code UNAVAILABLE} when the
   *     change did not complete in time
   */
  List<Member> removeMember(String name, Duration timeout);
}
