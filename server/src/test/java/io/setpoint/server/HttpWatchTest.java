package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.demo.DemoTypes;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.memory.MemoryBackend;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Watches as server-sent events, over a real socket: snapshot, live changes, resume, endings. */
class HttpWatchTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();
  private static Http http;

  @BeforeAll
  static void client() {
    http = new Http(live.agent().port());
  }

  private static JsonNode put(String path, String body) {
    Http.Answer answer = http.put(path, body);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.json();
  }

  @Test
  void snapshotThenEndOfSnapshotThenChangesEachWithItsRevision() throws Exception {
    put("/api/demo/v2/Artist/b-side?namespace=snap", "{\"data\": {\"name\": \"B\"}}");
    put("/api/demo/v2/Artist/a-side?namespace=snap", "{\"data\": {\"name\": \"A\"}}");

    try (SseClient watch = SseClient.open(http, "/api/demo/v2/Artist?watch=true&namespace=snap", Map.of())) {
      assertThat(watch.status()).isEqualTo(200);
      assertThat(watch.contentType()).startsWith("text/event-stream");
      SseClient.Event first = watch.next("upsert");
      SseClient.Event second = watch.next("upsert");
      assertThat(first.json().at("/upsert/resource/id/name").asText()).isEqualTo("a-side");
      assertThat(second.json().at("/upsert/resource/id/name").asText()).isEqualTo("b-side");
      assertThat(first.json().at("/upsert/resource/data/name").asText()).isEqualTo("A");
      assertThat(first.json().at("/upsert/resource/data").has("@type")).isFalse();
      assertThat(first.id()).as("snapshot upserts are no resume points").isNull();
      SseClient.Event end = watch.next("end_of_snapshot");
      assertThat(end.id()).isEqualTo(end.json().get("revision").asText());

      JsonNode c = put("/api/demo/v2/Artist/c-side?namespace=snap", "{\"data\": {\"name\": \"C\"}}");
      SseClient.Event upsert = watch.next("upsert");
      assertThat(upsert.id()).isEqualTo(c.get("version").asText());
      assertThat(upsert.json().at("/upsert/resource").toString()).isEqualTo(c.toString());
      assertThat(Long.parseLong(upsert.id())).isGreaterThan(Long.parseLong(end.id()));

      assertThat(http.delete("/api/demo/v2/Artist/a-side?namespace=snap").status()).isEqualTo(200);
      SseClient.Event delete = watch.next("delete");
      assertThat(delete.json().at("/delete/resource/id/name").asText()).isEqualTo("a-side");
      assertThat(Long.parseLong(delete.id())).isGreaterThan(Long.parseLong(upsert.id()));
    }
  }

  @Test
  void lastEventIdResumesAfterThatRevisionWithoutASnapshot() throws Exception {
    put("/api/demo/v2/Artist/before?namespace=resume", "{\"data\": {\"name\": \"Before\"}}");
    String resumeFrom;
    try (SseClient watch = SseClient.open(http, "/api/demo/v2/Artist?watch=true&namespace=resume", Map.of())) {
      watch.next("upsert");
      resumeFrom = watch.next("end_of_snapshot").id();
    }
    put("/api/demo/v2/Artist/while-away?namespace=resume", "{\"data\": {\"name\": \"Away\"}}");
    put("/api/demo/v2/Artist/other?namespace=elsewhere", "{\"data\": {\"name\": \"Elsewhere\"}}");
    put("/api/demo/v2/Artist/before?namespace=resume", "{\"data\": {\"name\": \"Changed\"}}");

    try (SseClient watch = SseClient.open(http, "/api/demo/v2/Artist?watch=true&namespace=resume",
        Map.of("Last-Event-ID", resumeFrom))) {
      SseClient.Event missed = watch.next("upsert");
      assertThat(missed.json().at("/upsert/resource/id/name").asText()).isEqualTo("while-away");
      assertThat(missed.id()).isNotNull();
      SseClient.Event changed = watch.next("upsert");
      assertThat(changed.json().at("/upsert/resource/data/name").asText()).isEqualTo("Changed");
      assertThat(Long.parseLong(changed.id())).isGreaterThan(Long.parseLong(missed.id()));

      put("/api/demo/v2/Artist/live?namespace=resume", "{\"data\": {\"name\": \"Live\"}}");
      assertThat(watch.next("upsert").json().at("/upsert/resource/id/name").asText()).isEqualTo("live");
    }
  }

  @Test
  void namePrefixAndWildcardsSelectWhatIsWatched() throws Exception {
    put("/api/demo/v2/Artist/keep-one?partition=p1&namespace=n1", "{\"data\": {\"name\": \"K\"}}");
    put("/api/demo/v2/Artist/drop-one?partition=p1&namespace=n1", "{\"data\": {\"name\": \"D\"}}");
    try (SseClient watch = SseClient.open(http,
        "/api/demo/v2/Artist?watch&partition=*&namespace=*&name_prefix=keep-", Map.of())) {
      assertThat(watch.next("upsert").json().at("/upsert/resource/id/name").asText()).isEqualTo("keep-one");
      watch.next("end_of_snapshot");
      put("/api/demo/v2/Artist/drop-two?partition=p2&namespace=n2", "{\"data\": {\"name\": \"D2\"}}");
      put("/api/demo/v2/Artist/keep-two?partition=p2&namespace=n2", "{\"data\": {\"name\": \"K2\"}}");
      assertThat(watch.next("upsert").json().at("/upsert/resource/id/name").asText()).isEqualTo("keep-two");
    }
  }

  @Test
  void aWatchThatCannotStartIsAPlainJsonError() throws Exception {
    try (SseClient watch = SseClient.open(http, "/api/demo/v2/Artist?watch=true&name_prefix=Big", Map.of())) {
      assertThat(watch.status()).isEqualTo(400);
      assertThat(watch.contentType()).startsWith("application/json");
    }
  }

  @Test
  void resumingFromARevisionNoLongerRetainedIsA400TellingToRelist() {
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register)
        .backend(new MemoryBackend(new Limits(2, 16))).start()) {
      Http own = new Http(agent.port());
      for (int i = 0; i < 5; i++) {
        assertThat(own.put("/api/demo/v1/Executive/e" + i, "{\"data\": {\"position\": \"P\"}}").status()).isEqualTo(200);
      }
      Http.Answer answer = own.send("GET", "/api/demo/v1/Executive?watch=true", null,
          java.net.http.HttpRequest.BodyPublishers.noBody(), Map.of("Last-Event-ID", "1"));
      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.json().get("code").asText()).isEqualTo("OUT_OF_RANGE");
    }
  }

  @Test
  void aClientThatGoesAwayClosesItsWatch() throws Exception {
    CountingBackend backend = new CountingBackend(new MemoryBackend());
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).backend(backend).start()) {
      SseClient watch = SseClient.open(new Http(agent.port()), "/api/demo/v1/Executive?watch=true", Map.of());
      watch.next("end_of_snapshot");
      assertThat(backend.open.get()).isEqualTo(1);
      watch.close();
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> backend.open.get() == 0);
    }
  }

  /** A backend that counts the watches of demo.v1.Executive open on it (no controller watches those). */
  private static final class CountingBackend extends ForwardingBackend {
    final AtomicInteger open = new AtomicInteger();

    CountingBackend(Backend delegate) {
      super(delegate);
    }

    @Override
    public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
      WatchCursor watch = super.watch(type, tenancy, namePrefix, sinceRevision);
      if (!type.equals(DemoTypes.EXECUTIVE)) {
        return watch;
      }
      open.incrementAndGet();
      AtomicBoolean closed = new AtomicBoolean();
      return new WatchCursor() {
        @Override
        public WatchEvent next() throws InterruptedException {
          return watch.next();
        }

        @Override
        public WatchEvent poll(Duration timeout) throws InterruptedException {
          return watch.poll(timeout);
        }

        @Override
        public void close() {
          if (closed.compareAndSet(false, true)) {
            open.decrementAndGet();
          }
          watch.close();
        }
      };
    }
  }

  @Test
  void stoppingTheServerEndsTheStreamWithAnErrorEvent() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start()) {
      Http own = new Http(agent.port());
      try (SseClient watch = SseClient.open(own, "/api/demo/v2/Artist?watch=true", Map.of())) {
        watch.next("end_of_snapshot");
        agent.close();
        SseClient.Event error = watch.next("error");
        assertThat(error.json().get("code").asText()).isEqualTo("UNAVAILABLE");
        watch.awaitEnd();
      }
    }
  }
}
