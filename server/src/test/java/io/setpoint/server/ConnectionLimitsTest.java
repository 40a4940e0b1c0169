package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.Watch;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's connection limits through real sockets: connections past the per-client or the total
 * cap are reset on arrival while open ones go on answering HTTP and gRPC, closing connections frees
 * their slots, and idle connections are reaped while open watches stay. Client sockets bind distinct
 * loopback source addresses (127.0.0.x, which Linux routes to the loopback interface) to act as
 * distinct clients.
 */
class ConnectionLimitsTest {
  private static final Duration PROMPTLY = Duration.ofSeconds(5);
  private final List<Socket> sockets = new ArrayList<>();
  private Agent agent;

  @AfterEach
  void closeAll() throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
    if (agent != null) {
      agent.close();
    }
  }

  @Test
  void pastEitherCapNewConnectionsAreResetWhileOpenOnesKeepAnsweringHttpAndGrpc() throws IOException {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register)
        .maxConnections(20).maxConnectionsPerClient(5).idleTimeout(Duration.ofMinutes(5)).start();
    try (SetpointClient grpc = SetpointClient.builder().address("127.0.0.1:" + agent.port()).build()) {
      grpc.write(artist("before")); // the gRPC connection: 1 from 127.0.0.1
      Socket http = open("127.0.0.1"); // 2 from 127.0.0.1
      assertThat(get(http, "/healthz")).startsWith("HTTP/1.1 200");

      // Per client: 127.0.0.2 gets five, its sixth is reset; 127.0.0.3 is still let in.
      List<Socket> second = openAdmitted("127.0.0.2", 5);
      assertRefused("127.0.0.2");
      List<Socket> third = openAdmitted("127.0.0.3", 5);
      assertRefused("127.0.0.3");

      // In all: 2 + 5 + 5 + 5 + 3 = 20 open; the 21st is reset, though its address has none.
      openAdmitted("127.0.0.4", 5);
      openAdmitted("127.0.0.5", 3);
      assertRefused("127.0.0.6");

      // The open connections still answer, over HTTP and gRPC.
      assertThat(get(http, "/healthz")).startsWith("HTTP/1.1 200");
      assertThat(get(second.get(0), "/readyz")).startsWith("HTTP/1.1 200");
      grpc.write(artist("during"));
      assertThat(grpc.read(Ids.of(DemoTypes.ARTIST, "during")).getId().getName()).isEqualTo("during");
      assertThat(get(http, "/metrics"))
          .contains("setpoint_connections_refused_total{limit=\"per_client\"} 2.0")
          .contains("setpoint_connections_refused_total{limit=\"total\"} 1.0")
          .contains("setpoint_connections_open 20.0");

      // Closing connections frees their slots, in all and for their address.
      for (Socket socket : third) {
        socket.close();
      }
      await().atMost(PROMPTLY).ignoreExceptionsInstanceOf(SocketException.class)
          .untilAsserted(() -> assertAdmitted(open("127.0.0.6")));
      for (Socket socket : second) {
        socket.close();
      }
      await().atMost(PROMPTLY).ignoreExceptionsInstanceOf(SocketException.class)
          .untilAsserted(() -> assertAdmitted(open("127.0.0.2")));
      openAdmitted("127.0.0.2", 4);
      assertRefused("127.0.0.2");
      assertThat(get(http, "/healthz")).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void idleConnectionsAreClosedButOpenWatchesStayOpen() throws Exception {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register)
        .idleTimeout(Duration.ofMillis(300)).start();
    try (SetpointClient grpc = SetpointClient.builder().address("127.0.0.1:" + agent.port()).build();
        Watch watch = grpc.watch(WatchListRequest.newBuilder().setType(DemoTypes.ARTIST).build())) {
      assertThat(watch.next().hasEndOfSnapshot()).isTrue();
      Socket sse = open("127.0.0.1");
      sse.setSoTimeout((int) PROMPTLY.toMillis());
      sse.getOutputStream().write(("GET /api/demo/v2/Artist?watch=true HTTP/1.1\r\nHost: setpoint\r\n"
          + "Accept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      assertThat(readUntil(sse.getInputStream(), "end_of_snapshot")).startsWith("HTTP/1.1 200");

      // An idle connection (nothing sent) is closed by the server once the idle timeout has passed,
      // so by then both watches have been open longer than that.
      Socket idle = open("127.0.0.1");
      idle.setSoTimeout((int) PROMPTLY.toMillis());
      assertThat(idle.getInputStream().read()).as("the idle connection is closed").isEqualTo(-1);

      agent.client().write(artist("after-idle"));
      WatchEvent event = watch.next();
      assertThat(event.getUpsert().getResource().getId().getName()).isEqualTo("after-idle");
      assertThat(readUntil(sse.getInputStream(), "after-idle")).contains("upsert");
    }
  }

  private static Resource artist(String name) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build();
  }

  /** A plain TCP connection to the agent from {@code source}, one of the loopback addresses. */
  private Socket open(String source) throws IOException {
    Socket socket = new Socket();
    sockets.add(socket);
    socket.bind(new InetSocketAddress(source, 0));
    socket.connect(new InetSocketAddress("127.0.0.1", agent.port()), (int) PROMPTLY.toMillis());
    socket.setSoTimeout((int) PROMPTLY.toMillis());
    return socket;
  }

  private List<Socket> openAdmitted(String source, int count) throws IOException {
    List<Socket> opened = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Socket socket = open(source);
      assertAdmitted(socket);
      opened.add(socket);
    }
    return opened;
  }

  /** The connection is served: an HTTP request on it is answered. */
  private static void assertAdmitted(Socket socket) throws IOException {
    assertThat(get(socket, "/healthz")).as("connection from %s", socket.getLocalAddress()).startsWith("HTTP/1.1 200");
  }

  /**
   * A connection from {@code source} is closed promptly, before anything is answered: reset (which
   * may reach the client while it is still connecting) or ended.
   */
  private void assertRefused(String source) throws IOException {
    try {
      int read = open(source).getInputStream().read();
      assertThat(read).as("connection from %s is closed at once", source).isEqualTo(-1);
    } catch (SocketTimeoutException e) {
      fail("connection from %s was left open for %s", source, PROMPTLY);
    } catch (SocketException e) {
      assertThat(e.getMessage()).as("connection from %s", source).containsIgnoringCase("reset");
    }
  }

  /** Sends {@code GET path} on a kept-alive connection and returns the whole response as text. */
  private static String get(Socket socket, String path) throws IOException {
    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: setpoint\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    InputStream in = socket.getInputStream();
    String head = readUntil(in, "\r\n\r\n");
    int length = 0;
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  /** Reads until the text read so far ends with, or contains, {@code marker}; fails at end of stream. */
  private static String readUntil(InputStream in, String marker) throws IOException {
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    while (!read.toString(StandardCharsets.UTF_8).contains(marker)) {
      int b = in.read();
      if (b < 0) {
        fail("the stream ended before %s: %s", marker, read.toString(StandardCharsets.UTF_8));
      }
      read.write(b);
    }
    return read.toString(StandardCharsets.UTF_8);
  }
}
