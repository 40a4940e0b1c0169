package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.RecordLabelController;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.CoreTypes;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The demo controllers, running in a real agent, driven through the public API. */
class DemoControllersTest {
  // snippet:start extension
  @RegisterExtension
  static final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register).controllers(DemoControllers::register))
      .build();
  // snippet:end extension

  private static Resource artist(String name, Artist data) {
    return setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name)).setData(Any.pack(data)).build());
  }

  private static List<Resource> albumsOf(Resource artist) {
    return setpoint.client().listByOwner(artist.getId()).stream()
        .filter(r -> r.getId().getType().equals(DemoTypes.ALBUM)).toList();
  }

  // snippet:start artist-test
  @Test
  void anAppliedArtistGetsItsAlbumsAndAcceptedThenDeletingItDeletesThem() {
    Resource artist = artist("nina", Artist.newBuilder().setName("Nina Simone")
        .addDiscography("Little Girl Blue").addDiscography("Pastel Blues").build());

    Resource accepted = setpoint.awaitCondition(artist.getId(), ArtistController.STATUS_KEY, "Accepted");
    List<Resource> albums = albumsOf(artist);
    assertThat(albums).extracting(r -> r.getId().getName())
        .containsExactlyInAnyOrder("nina-little-girl-blue", "nina-pastel-blues");
    var status = accepted.getStatusOrThrow(ArtistController.STATUS_KEY);
    assertThat(status.getObservedGeneration()).isEqualTo(artist.getGeneration());
    assertThat(Conditions.find(status, "Album1").orElseThrow().getResource().getName())
        .isEqualTo("nina-little-girl-blue");

    setpoint.client().delete(artist.getId());

    for (Resource album : albums) {
      setpoint.awaitDeleted(Ids.withoutUid(album.getId()));
    }
    // The cascade cleans up after itself.
    await().atMost(Duration.ofSeconds(10)).until(() ->
        setpoint.client().listAll(CoreTypes.TOMBSTONE, Tenancies.CLUSTER).isEmpty());
  }
  // snippet:end artist-test

  @Test
  void anArtistWithoutDiscographyGetsGreatestHitsAndALostAlbumComesBack() {
    Resource artist = artist("ella", Artist.newBuilder().setName("Ella").build());
    setpoint.awaitCondition(artist.getId(), ArtistController.STATUS_KEY, "Accepted");
    ID album = Ids.of(DemoTypes.ALBUM, "ella-greatest-hits");
    Resource first = setpoint.awaitResource(album, r -> true);
    assertThat(first.getOwner()).isEqualTo(artist.getId());

    setpoint.client().delete(first.getId());

    Resource again = setpoint.awaitResource(album, r -> !r.getId().getUid().equals(first.getId().getUid()));
    assertThat(again.getData().is(Album.class)).isTrue();
  }

  @Test
  void aRecordLabelCountsItsArtistsThroughTheCacheIndex() {
    Resource label = setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.RECORD_LABEL, "verve"))
        .setData(Any.pack(RecordLabel.newBuilder().setName("Verve").build())).build());
    artist("oscar", Artist.newBuilder().setName("Oscar Peterson").setLabel("verve").build());
    artist("billie", Artist.newBuilder().setName("Billie Holiday").setLabel("verve").build());

    setpoint.awaitResource(label.getId(), r -> signed(r).equals("2 artist(s) signed"));

    // An artist leaving the label is counted out.
    artist("billie", Artist.newBuilder().setName("Billie Holiday").setLabel("decca").build());
    setpoint.awaitResource(label.getId(), r -> signed(r).equals("1 artist(s) signed"));
  }

  @Test
  void theAgentExposesControllerRuntimeJvmAndRequestMetricsAndHealth() throws Exception {
    Resource artist = artist("metrics-artist", Artist.newBuilder().setName("Count Basie").build());
    setpoint.awaitCondition(artist.getId(), ArtistController.STATUS_KEY, "Accepted");

    String metrics = get("/metrics").body();
    assertThat(metrics)
        .containsPattern("controller_runtime_reconcile_total\\{controller=\"demo-artist\",result=\"success\"} [1-9]")
        .contains("controller_runtime_reconcile_time_seconds_bucket{controller=\"demo-artist\"")
        .contains("controller_runtime_active_workers{controller=\"demo-artist\"}")
        .contains("controller_runtime_reconcile_errors_total{controller=\"demo-artist\"}")
        .contains("workqueue_depth{name=\"demo-artist\"}")
        .containsPattern("workqueue_adds_total\\{name=\"demo-artist\"} [1-9]")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"demo-artist\"")
        .contains("workqueue_work_duration_seconds_bucket{name=\"demo-artist\"")
        .contains("workqueue_retries_total{name=\"demo-artist\"}")
        // controller-runtime's buckets: 5 ms to 60 s for reconciles, 10 ns to 1,000 s for the queue.
        .contains("controller_runtime_reconcile_time_seconds_bucket{controller=\"demo-artist\",le=\"0.005\"}")
        .contains("controller_runtime_reconcile_time_seconds_bucket{controller=\"demo-artist\",le=\"60.0\"}")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"demo-artist\",le=\"1.0E-8\"}")
        .contains("workqueue_work_duration_seconds_bucket{name=\"demo-artist\",le=\"1000.0\"}")
        .containsPattern("controller_runtime_max_concurrent_reconciles\\{controller=\"demo-artist\"} [1-9]")
        // The JVM's meters.
        .contains("jvm_memory_used_bytes{area=\"heap\"", "jvm_threads_live_threads", "process_uptime_seconds")
        // Every request, by service, method and status: this test's writes went over gRPC.
        .containsPattern("setpoint_server_requests_total\\{grpc_status=\"0\",[^}]*method=\"Write\",result=\"success\","
            + "service=\"setpoint.resource.v1.ResourceService\"} [1-9]")
        .contains("setpoint_server_request_duration_seconds_bucket{")
        // The controllers' own watches: open, sending, and how far behind the store each event was.
        .containsPattern("setpoint_watches_open [1-9]")
        .containsPattern("setpoint_watch_events_total [1-9]")
        .contains("setpoint_watch_lag_revisions_bucket{le=\"1.0\"}");
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
  }

  private static java.net.http.HttpResponse<String> get(String path) throws Exception {
    try (var http = java.net.http.HttpClient.newHttpClient()) {
      return http.send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + setpoint.agent().port() + path)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
    }
  }

  private static String signed(Resource label) {
    var status = label.getStatusMap().get(RecordLabelController.STATUS_KEY);
    return status == null ? "" : Conditions.find(status, "Signed").map(c -> c.getMessage()).orElse("");
  }
}
