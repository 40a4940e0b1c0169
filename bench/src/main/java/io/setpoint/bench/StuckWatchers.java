package io.setpoint.bench;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Watches of every Artist in the default namespace that read nothing until asked to: gRPC {@code
 * WatchList} calls and {@code ?watch=true} server-sent event streams,
 * alternately, each on a connection of its own. Once the benchmark is done writing, {@link #drain}
 * reads each to its end and says what its client saw.
 */
final class StuckWatchers implements AutoCloseable {
  private static final int MESSAGE_CHARS = 200;

  /** One watch that is not being read. */
  private interface Stuck extends AutoCloseable {
    /** Reads until the stream ends or {@code timeout} passes, and says what came. */
    String drain(Duration timeout) throws InterruptedException;

    @Override
    void close();
  }

  private final List<Stuck> watches = new ArrayList<>();

  private StuckWatchers() {}

  /** Opens {@code count} watches at {@code agent} ("host:port") with {@code secret}: gRPC first, then HTTP, in turn. */
  static StuckWatchers open(String agent, String secret, int count) throws IOException, InterruptedException {
    StuckWatchers opened = new StuckWatchers();
    try {
      for (int i = 0; i < count; i++) {
        opened.watches.add(i % 2 == 0 ? grpc(agent, secret) : http(agent, secret));
      }
      return opened;
    } catch (IOException | InterruptedException | RuntimeException e) {
      opened.close();
      throw e;
    }
  }

  /** How many are gRPC calls; the rest are server-sent events. */
  static int grpcCount(int count) {
    return (count + 1) / 2;
  }

  /** What each watch's client saw once it read again, in the order they were opened. */
  List<String> drain(Duration timeout) throws InterruptedException {
    List<String> seen = new ArrayList<>();
    for (Stuck watch : watches) {
      seen.add(watch.drain(timeout));
    }
    return seen;
  }

  @Override
  public void close() {
    watches.forEach(Stuck::close);
  }

  /**
   * A {@code WatchList} call that asks for no message: unlike {@link io.setpoint.client.Watch},
   * which takes up to 256 events ahead of its reader, it leaves every byte in the HTTP/2 window, as
   * a client whose reading thread is stuck does.
   */
  private static Stuck grpc(String agent, String secret) {
    ManagedChannel channel = NettyChannelBuilder.forTarget(agent).usePlaintext().maxInboundMessageSize(16 << 20).build();
    ClientCall<WatchListRequest, WatchEvent> call =
        channel.newCall(ResourceServiceGrpc.getWatchListMethod(), CallOptions.DEFAULT);
    AtomicLong events = new AtomicLong();
    CompletableFuture<Status> ended = new CompletableFuture<>();
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of(SetpointClient.TOKEN_HEADER, Metadata.ASCII_STRING_MARSHALLER), secret);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(WatchEvent event) {
        events.incrementAndGet();
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        ended.complete(status);
      }
    }, headers);
    call.sendMessage(WatchListRequest.newBuilder()
        .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "default")).build());
    call.halfClose();
    return new Stuck() {
      @Override
      public String drain(Duration timeout) throws InterruptedException {
        call.request(Integer.MAX_VALUE);
        try {
          Status status = ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
          return "gRPC: " + events.get() + " events, then " + status.getCode()
              + (status.getDescription() == null ? "" : ": " + shorten(status.getDescription()));
        } catch (TimeoutException e) {
          return "gRPC: " + events.get() + " events, still open after " + timeout.toSeconds() + " s of reading";
        } catch (ExecutionException e) {
          throw new IllegalStateException("a future completed only with a status failed", e);
        }
      }

      @Override
      public void close() {
        call.cancel("the benchmark is done with this watch", null);
        channel.shutdownNow();
      }
    };
  }

  private static Stuck http(String agent, String secret) throws IOException, InterruptedException {
    HttpClient http = FloodHttp.client();
    HttpResponse<InputStream> response = http.send(FloodHttp.get(URI.create("http://" + agent
        + "/api/demo/v2/Artist?watch=true"), secret), HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() != 200) {
      response.body().close();
      http.shutdownNow();
      throw new IOException("the HTTP watch was answered " + response.statusCode());
    }
    return new Stuck() {
      @Override
      public String drain(Duration timeout) throws InterruptedException {
        long[] events = {0};
        AtomicReference<String> end = new AtomicReference<>("the stream ended without an error event");
        Thread reader = Thread.ofVirtual().start(() -> {
          try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            boolean error = false;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
              if (line.equals("event:error")) {
                error = true;
              } else if (line.startsWith("event:")) {
                events[0]++;
              } else if (error && line.startsWith("data:")) {
                end.set("error event " + shorten(line.substring("data:".length())));
                return;
              }
            }
          } catch (IOException e) {
            end.set(shorten(e.toString()));
          }
        });
        reader.join(timeout);
        if (reader.isAlive()) {
          close();
          reader.join();
          return "HTTP: " + events[0] + " events, still open after " + timeout.toSeconds() + " s of reading";
        }
        return "HTTP: " + events[0] + " events, then " + end.get();
      }

      @Override
      public void close() {
        try {
          response.body().close();
        } catch (IOException e) {
          // Closing what we only read from: nothing to do about a failure.
        }
        // Not close(): it waits for every exchange to end, and this one ends only when the agent ends it.
        http.shutdownNow();
      }
    };
  }

  private static String shorten(String message) {
    return message.length() <= MESSAGE_CHARS ? message : message.substring(0, MESSAGE_CHARS) + "...";
  }
}
