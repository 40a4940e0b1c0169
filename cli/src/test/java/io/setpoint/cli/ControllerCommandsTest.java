package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Result;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.Agent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code setpoint controller list|history|reconcile}, {@code setpoint why} and their HTTP routes,
 * against an agent running a controller that records why each reconcile ran.
 */
class ControllerCommandsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final List<List<Trigger>> reconciles = new CopyOnWriteArrayList<>();
  private Agent agent;
  private SetpointClient client;
  private String address;

  @BeforeEach
  void start() {
    Controller labels = Controller.forType(DemoTypes.RECORD_LABEL).named("labels").reconciler((ctx, tools, req) -> {
      reconciles.add(ctx.triggers());
      if (req.id().getName().equals("broken")) {
        throw new IllegalStateException("no distributor for this label");
      }
      return Result.done();
    });
    // A filter with a bug: it lets each event through, and each is a fault the list shows.
    Controller picky = Controller.forType(DemoTypes.ARTIST).named("picky").filter(event -> {
      throw new AssertionError("a filter's bug");
    }).reconciler((ctx, tools, req) -> Result.done());
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register)
        .controllers(manager -> manager.register(labels).register(picky)).start();
    address = "127.0.0.1:" + agent.port();
    client = SetpointClient.connect(address);
  }

  @AfterEach
  void stop() {
    client.close();
    agent.close();
  }

  @Test
  void listShowsTheControllersAndReconcileQueuesOneWithAManualTrigger() {
    ID verve = client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "verve"))
        .setData(Any.pack(RecordLabel.newBuilder().setName("Verve").build())).build()).getId();
    await().atMost(WAIT).until(() -> reconciles.size() == 1);

    CliRun list = CliRun.run("controller", "list", "-address", address);
    assertThat(list.code()).as(list.toString()).isZero();
    assertThat(list.out()).contains("NAME", "PLACEMENT", "WORKERS", "RECONCILES", "ERRORS", "setpoint-cascade");
    // The reconcile is counted once it has ended, a moment after the reconciler returned.
    await().atMost(WAIT).until(() -> labelsColumns(CliRun.run("controller", "list", "-address", address)),
        columns -> columns.equals(List.of("labels", "demo.v1.RecordLabel", "SINGLETON", "yes", "1", "0", "1", "0", "0")));

    CliRun reconcile = CliRun.run("controller", "reconcile", "labels", "RecordLabel", "verve", "-partition", "default",
        "-address", address);
    assertThat(reconcile.code()).as(reconcile.toString()).isZero();
    assertThat(reconcile.out()).contains("queued demo.v1.RecordLabel/default/verve for labels");
    await().atMost(WAIT).until(() -> reconciles.size() == 2);
    // A resync already scheduled for the label is merged into the manual reconcile.
    assertThat(reconciles.get(1)).extracting(Trigger::kind).contains(Trigger.Kind.MANUAL);
    assertThat(verve.getName()).isEqualTo("verve");
  }

  /** name, type, placement, running, workers, queue, reconciles, errors of the labels controller. */
  private static List<String> labelsColumns(CliRun list) {
    return list.out().lines().filter(l -> l.startsWith("labels ")).findFirst()
        .map(l -> List.of(l.trim().split("\\s+"))).orElse(List.of());
  }

  @Test
  void listAndTheHttpRouteShowAControllersFaults() throws Exception {
    client.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "odd"))
        .setData(Any.pack(Artist.newBuilder().setName("Odd").build())).build());

    await().atMost(WAIT).until(() -> CliRun.run("controller", "list", "-address", address).out().lines()
        .anyMatch(l -> l.startsWith("picky ") && l.contains("filter failed (upsert of demo.v2.Artist/default/default/odd")));
    CliRun list = CliRun.run("controller", "list", "-address", address);
    assertThat(list.out()).contains("FAULTS", "LAST FAULT");
    String picky = list.out().lines().filter(l -> l.startsWith("picky ")).findFirst().orElseThrow();
    assertThat(picky).contains("AssertionError: a filter's bug");
    assertThat(labelsColumns(list)).last().isEqualTo("0");

    HttpResponse<String> one = get(HttpClient.newHttpClient(), "/api/controllers/picky");
    assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
    assertThat(one.body()).contains("\"faults\":", "\"lastFault\":\"filter failed (upsert of demo.v2.Artist/default/default/odd");
  }

  @Test
  void reconcileNamesAnUnknownControllerAndATypeTheControllerDoesNotManage() {
    CliRun unknown = CliRun.run("controller", "reconcile", "nobody", "RecordLabel", "x", "-partition", "default",
        "-address", address);
    assertThat(unknown.code()).isEqualTo(Main.FAILED);
    assertThat(unknown.err()).contains("no controller named nobody", "'setpoint controller list' lists them");

    CliRun wrongType = CliRun.run("controller", "reconcile", "labels", "demo.v2.Artist", "x", "-address", address);
    assertThat(wrongType.code()).isEqualTo(Main.FAILED);
    assertThat(wrongType.err()).contains("id.type", "manages demo.v1.RecordLabel");
  }

  @Test
  void theSameOverHttp() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> list = http.send(HttpRequest.newBuilder(URI.create("http://" + address + "/api/controllers"))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(list.body()).contains("\"name\":\"labels\"", "\"placement\":\"SINGLETON\"", "\"running\":true");

    HttpResponse<String> queued = http.send(HttpRequest.newBuilder(URI.create(
            "http://" + address + "/api/controllers/labels/reconcile/demo/v1/RecordLabel/blue-note?partition=default"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(queued.statusCode()).as(queued.body()).isEqualTo(200);
    await().atMost(WAIT).until(() -> reconciles.stream().anyMatch(t -> t.stream().anyMatch(c -> c.kind() == Trigger.Kind.MANUAL)));

    HttpResponse<String> unknown = http.send(HttpRequest.newBuilder(URI.create(
            "http://" + address + "/api/controllers/nobody/reconcile/demo/v1/RecordLabel/x?partition=default"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(unknown.statusCode()).isEqualTo(404);
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(
            "http://" + address + "/api/controllers/labels/reconcile/demo/v1/RecordLabel/x")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
  }

  @Test
  void historyAndWhyShowEachReconcileWithItsTriggerResultAndError() {
    // Once the controller has reconciled something it watches: what is written next arrives as an
    // event, not in its startup listing.
    label("first");
    await().atMost(WAIT).until(() -> reconciles.size() >= 1);
    label("verve");
    label("broken");
    // One worker: once a fifth reconcile starts, the first four (first, verve, broken, broken's retry) are recorded.
    await().atMost(WAIT).until(() -> reconciles.size() >= 5);

    CliRun history = CliRun.run("controller", "history", "labels", "-address", address);
    assertThat(history.code()).as(history.toString()).isZero();
    assertThat(history.out()).contains("STARTED", "TRIGGERS", "demo.v1.RecordLabel/default/verve", "success",
        "EVENT upsert demo.v1.RecordLabel/default/verve", "demo.v1.RecordLabel/default/broken", "error",
        "no distributor for this label", "RETRY after failure: no distributor for this label");

    CliRun broken = CliRun.run("controller", "history", "labels", "RecordLabel", "broken", "-partition", "default",
        "-address", address);
    assertThat(broken.code()).as(broken.toString()).isZero();
    assertThat(broken.out()).contains("demo.v1.RecordLabel/default/broken", "error").doesNotContain("/verve");

    CliRun why = CliRun.run("why", "RecordLabel", "verve", "-partition", "default", "-o", "json", "-address", address);
    assertThat(why.code()).as(why.toString()).isZero();
    assertThat(why.out()).contains("\"controller\": \"labels\"", "\"key\": \"demo.v1.RecordLabel/default/verve\"",
        "\"result\": \"success\"", "\"kind\": \"EVENT\"").doesNotContain("broken");

    CliRun nothing = CliRun.run("why", "RecordLabel", "never-written", "-partition", "default", "-address", address);
    assertThat(nothing.code()).as(nothing.toString()).isZero();
    assertThat(nothing.err()).contains("No controller of this member reconciled demo.v1.RecordLabel/default/never-written");

    CliRun tooMany = CliRun.run("controller", "history", "labels", "-limit", "300", "-address", address);
    assertThat(tooMany.code()).isEqualTo(Main.FAILED);
    assertThat(tooMany.err()).contains("limit", "at most 256");
    CliRun unknown = CliRun.run("controller", "history", "nobody", "-address", address);
    assertThat(unknown.code()).isEqualTo(Main.FAILED);
    assertThat(unknown.err()).contains("no controller named nobody");
  }

  @Test
  void oneControllerAndReconcilesOverHttp() throws Exception {
    label("verve");
    label("after-verve");
    // One worker: once the second label's reconcile starts, the first one's is recorded.
    await().atMost(WAIT).until(() -> reconciles.size() >= 2);
    HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> one = get(http, "/api/controllers/labels");
    assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
    assertThat(one.body()).contains("\"name\":\"labels\"", "\"running\":true");
    assertThat(get(http, "/api/controllers/nobody").statusCode()).isEqualTo(404);

    HttpResponse<String> ofLabel = get(http, "/api/controllers/labels/reconciles?resource=demo/v1/RecordLabel/verve&partition=default");
    assertThat(ofLabel.statusCode()).as(ofLabel.body()).isEqualTo(200);
    assertThat(ofLabel.body()).contains("\"key\":\"demo.v1.RecordLabel/default/verve\"", "\"result\":\"success\"");
    HttpResponse<String> why = get(http, "/api/reconciles?resource=demo/v1/RecordLabel/verve&partition=default&limit=5");
    assertThat(why.statusCode()).as(why.body()).isEqualTo(200);
    assertThat(why.body()).contains("\"controller\":\"labels\"");

    HttpResponse<String> malformed = get(http, "/api/reconciles?resource=demo/v1");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body()).contains("resource", "GROUP/VERSION/KIND/NAME");
    HttpResponse<String> unknownParam = get(http, "/api/controllers/labels/reconciles?since=1");
    assertThat(unknownParam.statusCode()).isEqualTo(400);
  }

  private void label(String name) {
    client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), name))
        .setData(Any.pack(RecordLabel.newBuilder().setName(name).build())).build());
  }

  private HttpResponse<String> get(HttpClient http, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://" + address + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
