package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.demo.DemoTypes;
import io.setpoint.storage.raft.RaftBackend;
import io.setpoint.storage.raft.RaftConfig;
import io.setpoint.testkit.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bursts of concurrent blind writes over HTTP, the way users first try a durable store: eight
 * clients, each write through a member picked in turn, on five names all clients share and on
 * names of their own, with a pause between bursts. Every write is answered 200 (the server answers
 * 503 when a write does not commit within its request timeout), and afterwards a write through
 * each member succeeds too.
 */
@Timeout(240)
class ConcurrentBlindWritesTest {
  private static final int CLIENTS = 8;
  private static final int BURSTS = 3;
  private static final int WRITES_PER_BURST = 6;
  private static final String ARTISTS = "/api/demo/v2/Artist/";

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void oneDurableNodeAnswersEveryWriteOfABurst() throws Exception {
    int raftPort = FreePorts.loopback(1).getFirst();
    RaftBackend store = RaftBackend.start(RaftConfig.of("n1", dir.resolve("n1"), raftPort, Map.of("n1", "127.0.0.1:" + raftPort)));
    try (Agent agent = agentOver(store)) {
      List<String> members = List.of("http://127.0.0.1:" + agent.port());
      awaitReady(members);
      assertEveryWriteAnswered(members, List.of(store));
    } finally {
      store.close();
    }
  }

  @Test
  void threeMembersAnswerEveryWriteOfABurstThroughAnyMember() throws Exception {
    List<Integer> ports = FreePorts.loopback(3);
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 0; i < 3; i++) {
      peers.put("n" + i, "127.0.0.1:" + ports.get(i));
    }
    List<RaftBackend> stores = new ArrayList<>();
    List<Agent> agents = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        stores.add(RaftBackend.start(RaftConfig.of("n" + i, dir.resolve("n" + i), ports.get(i), peers)));
      }
      for (RaftBackend store : stores) {
        agents.add(agentOver(store));
      }
      List<String> members = agents.stream().map(a -> "http://127.0.0.1:" + a.port()).toList();
      awaitReady(members);
      assertEveryWriteAnswered(members, stores);
    } finally {
      agents.forEach(Agent::close);
      stores.forEach(RaftBackend::close);
    }
  }

  private static Agent agentOver(RaftBackend store) {
    return Agent.builder().port(0).acls(false).types(DemoTypes::register).backend(store).start();
  }

  private void awaitReady(List<String> members) {
    for (String member : members) {
      await().atMost(Duration.ofSeconds(60)).until(() -> send(HttpRequest.newBuilder(URI.create(member + "/readyz"))).statusCode() == 200);
    }
  }

  private void assertEveryWriteAnswered(List<String> members, List<RaftBackend> stores) throws Exception {
    for (boolean shared : new boolean[] {true, false}) {
      Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
      AtomicInteger turn = new AtomicInteger();
      for (int burst = 0; burst < BURSTS; burst++) {
        int b = burst;
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
          List<Future<?>> done = new ArrayList<>();
          for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            done.add(clients.submit(() -> {
              for (int i = 0; i < WRITES_PER_BURST; i++) {
                String name = shared ? "shared-" + (i % 5) : "own-" + client + "-" + (i % 5);
                String member = members.get(Math.floorMod(turn.getAndIncrement(), members.size()));
                int status = put(member, name, "burst " + b + " client " + client + " write " + i);
                answers.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
              }
              return null;
            }));
          }
          for (Future<?> f : done) {
            f.get(120, TimeUnit.SECONDS);
          }
        }
        // The gap between bursts: the store is idle until every member has applied the burst.
        await().atMost(Duration.ofSeconds(60))
            .until(() -> stores.stream().mapToLong(RaftBackend::revision).distinct().count() == 1);
      }
      assertThat(Map.copyOf(answers))
          .as("HTTP status -> count of %s blind writes", shared ? "shared-name" : "own-name")
          .containsOnlyKeys(200);
      for (String member : members) {
        assertThat(put(member, "after-" + shared, "after the bursts")).as("a write through %s after the bursts", member).isEqualTo(200);
      }
    }
  }

  private int put(String member, String name, String artist) {
    String body = "{\"data\": {\"name\": \"" + artist + "\"}}";
    return send(HttpRequest.newBuilder(URI.create(member + ARTISTS + name))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(body))).statusCode();
  }

  /** Bounded well above the server's own request timeout, which answers 503 when it runs out. */
  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
