package io.setpoint.loadgen.chaos;

import io.grpc.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import io.setpoint.demo.DemoTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A watch of the clients' keys on one member that lasts the whole run: when its stream breaks it
 * resumes from the last revision it received ({@code since_revision}), and re-lists (a new
 * snapshot, a new session) only when the member refuses that revision with {@code OUT_OF_RANGE}.
 * It records every event with the time it arrived.
 */
final class Watcher implements Runnable {
  private static final Duration RETRY = Duration.ofMillis(100);

  /** What arrived. */
  enum Type {
    /** A resource of the initial snapshot of a session. */
    SNAPSHOT,
    /** The end of a session's snapshot; its revision is the snapshot's. */
    END_OF_SNAPSHOT,
    /** A change: a resource written. */
    UPSERT,
    /** A change: a resource deleted (its value the last it held). */
    DELETE
  }

  /**
   * One event as watcher {@code member} received it in {@code session} (a new session begins with
   * each snapshot).
   */
  record Event(int member, int session, Type type, String key, String value, long revision, long received) {}

  /**
   * What a watcher received, as the checks read it.
   *
   * @param lastRevision the highest revision of a change or snapshot end received
   * @param relists how many times the member refused to resume, so that the watcher had to re-list
   * @param resumes how many times it asked again after its stream broke or could not open
   * @param lastError the last failure of its stream, or empty
   */
  record Log(int member, List<Event> events, long lastRevision, int relists, int resumes, String lastError) {
    Log {
      events = List.copyOf(events);
    }
  }

  private final int member;
  private final String endpoint;
  private final List<Event> events = new ArrayList<>();
  private volatile boolean stopping;
  private volatile Watch current;
  private volatile long lastRevision;
  private volatile int relists;
  private volatile int resumes;
  private volatile String lastError = "";

  Watcher(int member, String endpoint) {
    this.member = member;
    this.endpoint = endpoint;
  }

  @Override
  public void run() {
    int session = 0;
    try (SetpointClient client = SetpointClient.connect(endpoint)) {
      boolean snapshot = true;
      while (!stopping) {
        WatchListRequest.Builder request = WatchListRequest.newBuilder()
            .setType(DemoTypes.ARTIST).setTenancy(Tenancy.getDefaultInstance()).setNamePrefix(Worker.KEY_PREFIX);
        if (snapshot) {
          session++;
        } else {
          request.setSinceRevision(lastRevision);
        }
        boolean inSnapshot = snapshot;
        try (Watch watch = client.watch(request.build())) {
          current = watch;
          if (stopping) {
            return;
          }
          while (watch.hasNext()) {
            WatchEvent event = watch.next();
            long received = System.nanoTime();
            Event recorded = switch (event.getEventCase()) {
              case UPSERT -> new Event(member, session, inSnapshot ? Type.SNAPSHOT : Type.UPSERT,
                  event.getUpsert().getResource().getId().getName(), Worker.valueOf(event.getUpsert().getResource()),
                  event.getRevision(), received);
              case DELETE -> new Event(member, session, Type.DELETE, event.getDelete().getResource().getId().getName(),
                  Worker.valueOf(event.getDelete().getResource()), event.getRevision(), received);
              case END_OF_SNAPSHOT -> new Event(member, session, Type.END_OF_SNAPSHOT, "", null, event.getRevision(), received);
              default -> null;
            };
            if (recorded == null) {
              continue;
            }
            if (recorded.type() == Type.END_OF_SNAPSHOT) {
              inSnapshot = false;
            }
            synchronized (events) {
              events.add(recorded);
            }
            if (recorded.type() != Type.SNAPSHOT) {
              lastRevision = Math.max(lastRevision, recorded.revision());
            }
          }
          // Ended cleanly (the member shut its streams down): resume, unless no snapshot ever came.
          snapshot = lastRevision == 0;
        } catch (SetpointException e) {
          if (stopping) {
            return;
          }
          lastError = e.code() + ": " + e.description();
          if (e.code() == Status.Code.OUT_OF_RANGE) {
            relists++;
          }
          snapshot = e.code() == Status.Code.OUT_OF_RANGE || lastRevision == 0;
        }
        if (!stopping) {
          resumes++;
          Thread.sleep(RETRY.toMillis()); // the member may be down: ask again at a modest pace
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Ends the watch; {@link #run()} returns soon after. */
  void stop() {
    stopping = true;
    Watch watch = current;
    if (watch != null) {
      watch.close();
    }
  }

  /** The highest revision of a change or snapshot end received so far. */
  long lastRevision() {
    return lastRevision;
  }

  /** Whether a snapshot has ended, so that it covers every later write. */
  boolean listed() {
    synchronized (events) {
      return events.stream().anyMatch(e -> e.type() == Type.END_OF_SNAPSHOT);
    }
  }

  /** What it received so far. */
  Log log() {
    synchronized (events) {
      return new Log(member, events, lastRevision, relists, resumes, lastError);
    }
  }
}
