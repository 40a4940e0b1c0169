package io.setpoint.testing.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Controller;
import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import io.setpoint.controller.Result;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.testing.SetpointExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two managers in one JVM, each on its own {@link ManualTicker}, elect one leader on a lease in the
 * agent's store: the test moves each manager's time on its own, so one can stand for a process
 * paused past its lease while the other takes over, and every step is decided without sleeping.
 */
class LeaseElectionTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration RETRY = Duration.ofSeconds(2);
  private static final Duration LEASE = Duration.ofSeconds(15);
  private static final String STATUS_KEY = "election.test/labels";

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final ManualTicker tickerA = new ManualTicker();
  private final ManualTicker tickerB = new ManualTicker();
  /** The client each manager's controller was handed, by the manager's holder name. */
  private final Map<String, SetpointClient> writers = new ConcurrentHashMap<>();
  private Manager a;
  private Manager b;

  @AfterEach
  void closeManagers() {
    for (Manager m : new Manager[] {a, b}) {
      if (m != null) {
        m.close();
      }
    }
  }

  @Test
  void aPausedLeaderIsTakenOverAndItsWritesAreRefusedWhenItResumes() {
    a = manager("a", tickerA);
    await().atMost(WAIT).until(a::isLeader);
    b = manager("b", tickerB);
    ID label = label("verve");
    Resource reconciledByA = setpoint.awaitResource(label, r -> writtenBy(r, "a"));

    // A is paused: its time stands still, so it neither renews nor notices anything. B's time runs
    // until the lease has gone unrenewed for a lease duration in B's eyes.
    await().atMost(WAIT).until(() -> {
      tickerB.advance(RETRY);
      return b.isLeader();
    });
    assertThat(a.isLeader()).as("A, paused, still believes it leads").isTrue();
    assertThat(lease().getHolder()).isEqualTo("b");
    assertThat(lease().getEpoch()).isEqualTo(2);
    Resource reconciledByB = setpoint.awaitResource(label, r -> writtenBy(r, "b"));
    assertThat(reconciledByB.getVersion()).isNotEqualTo(reconciledByA.getVersion());

    // A resumes and writes with the client its controller was given, fenced at epoch 1.
    assertThatThrownBy(() -> writers.get("a").writeStatus(label, STATUS_KEY, seenBy("a", reconciledByA.getGeneration())))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.FAILED_PRECONDITION);
          assertThat(e.description()).contains("fenced", "lease labels", "held by b at epoch 2");
        });
    assertThatThrownBy(() -> writers.get("a").delete(label))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.FAILED_PRECONDITION));
    assertThat(setpoint.client().read(label).getVersion()).as("nothing the deposed leader sent was stored")
        .isEqualTo(reconciledByB.getVersion());

    // A's next renew finds the lease taken, and A stops its controller.
    tickerA.advance(RETRY);
    await().atMost(WAIT).until(() -> !a.isLeader() && !running(a));
    assertThat(running(b)).isTrue();
  }

  @Test
  void aLeaderThatClosesReleasesTheLeaseSoAStandbyTakesOverWithoutWaitingForItToExpire() {
    a = manager("a", tickerA);
    await().atMost(WAIT).until(a::isLeader);
    a.close();
    Lease released = lease();
    assertThat(released.getExpiresAt()).as("released: expires when renewed").isEqualTo(released.getRenewedAt());

    // No time passes for B: it takes the released lease at its first look.
    b = manager("b", tickerB);
    await().atMost(WAIT).until(b::isLeader);
    assertThat(tickerB.read()).isZero();
    assertThat(lease().getEpoch()).isEqualTo(2);
  }

  @Test
  void aLeaderThatCannotRenewWithinTheRenewDeadlineStopsItsControllersBeforeTheLeaseCanExpire() {
    a = manager("a", tickerA);
    await().atMost(WAIT).until(() -> a.isLeader() && running(a));
    // Another writer moves the lease under A (as an operator forcing a change would): A's renews
    // fail, and A steps down at once rather than writing on.
    Resource stored = setpoint.client().readConsistent(Ids.of(Types.LEASE, "labels"));
    Lease taken = lease().toBuilder().setHolder("operator").setEpoch(lease().getEpoch() + 1).build();
    setpoint.client().write(stored.toBuilder().setData(Any.pack(taken)).build());

    tickerA.advance(RETRY);
    await().atMost(WAIT).until(() -> !a.isLeader() && !running(a));
    assertThat(lease().getHolder()).isEqualTo("operator");
  }

  @Test
  void theServerRefusesFencesThatDoNotHoldAndNamesTheFieldOfAMalformedOne() throws Exception {
    ID label = Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "blue-note");
    Resource resource = Resource.newBuilder().setId(label)
        .setData(Any.pack(RecordLabel.newBuilder().setName("Blue Note").build())).build();
    SetpointClient client = setpoint.client();

    assertThatThrownBy(() -> client.fenced(fence("nobody", "x", 1)).write(resource))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.FAILED_PRECONDITION);
          assertThat(e.description()).contains("lease nobody", "does not exist");
        });
    assertThatThrownBy(() -> client.fenced(fence("Bad_Name", "", 0)).write(resource))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
          assertThat(e.violations()).extracting(SetpointException.FieldViolation::field)
              .containsExactlyInAnyOrder("fence.lease", "fence.holder", "fence.epoch");
        });
    assertThat(client.findConsistent(label)).as("no refused write was stored").isEmpty();

    a = manager("a", tickerA);
    await().atMost(WAIT).until(a::isLeader);
    Fence held = fence("labels", "a", lease().getEpoch());
    assertThat(client.fenced(held).write(resource).getVersion()).isNotEmpty();

    // Over HTTP, the same fence is a header.
    HttpClient http = HttpClient.newHttpClient();
    String url = "http://127.0.0.1:" + setpoint.agent().port()
        + "/api/demo/v1/RecordLabel/blue-note?partition=default";
    String body = "{\"data\":{\"name\":\"Blue Note Records\"}}";
    assertThat(put(http, url, body, "labels/a/" + (held.getEpoch() + 1)).statusCode()).isEqualTo(412);
    HttpResponse<String> malformed = put(http, url, body, "labels/a");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body()).contains("Setpoint-Fence");
    assertThat(put(http, url, body, "labels/a/" + held.getEpoch()).statusCode()).isEqualTo(200);
  }

  private static HttpResponse<String> put(HttpClient http, String url, String body, String fence) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/json")
        .header("Setpoint-Fence", fence)
        .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private Manager manager(String holder, ManualTicker ticker) {
    Controller labels = Controller.forType(DemoTypes.RECORD_LABEL).named("labels-" + holder).reconciler((ctx, tools, req) -> {
      writers.put(holder, tools.client());
      Resource current = tools.cache().get(req.id()).orElse(null);
      if (current != null) {
        tools.client().writeStatus(current.getId(), STATUS_KEY, seenBy(holder, current.getGeneration()));
      }
      return Result.done();
    });
    Manager manager = Manager.builder().client(setpoint.client()).ticker(ticker)
        .leaderElection(LeaseElection.named("labels").holder(holder)
            .leaseDuration(LEASE).renewDeadline(Duration.ofSeconds(10)).retryPeriod(RETRY))
        .build();
    manager.register(labels);
    manager.start();
    return manager;
  }

  private ID label(String name) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build())).build()).getId();
  }

  private Lease lease() {
    try {
      return setpoint.client().readConsistent(Ids.of(Types.LEASE, "labels")).getData().unpack(Lease.class);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private static Fence fence(String lease, String holder, long epoch) {
    return Fence.newBuilder().setLease(lease).setHolder(holder).setEpoch(epoch).build();
  }

  private static Status seenBy(String holder, String generation) {
    return Status.newBuilder().setObservedGeneration(generation)
        .addConditions(Conditions.isTrue("Seen", "Reconciled", "by " + holder)).build();
  }

  private static boolean writtenBy(Resource resource, String holder) {
    Status status = resource.getStatusMap().get(STATUS_KEY);
    return status != null && status.getObservedGeneration().equals(resource.getGeneration())
        && Conditions.find(status, "Seen").map(c -> c.getMessage().equals("by " + holder)).orElse(false);
  }

  private static boolean running(Manager manager) {
    return manager.controllers().stream().anyMatch(ControllerState::running);
  }
}
