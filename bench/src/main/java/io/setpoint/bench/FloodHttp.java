package io.setpoint.bench;

import io.setpoint.loadgen.Latencies;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP/JSON clients of {@code bench flood}: a paced reader whose latency is measured, and a
 * flood of concurrent requests with another token (sent from a process of its own, {@link
 * FloodClientCommand}). Each uses its own {@link HttpClient} (its own connections) over HTTP/1.1,
 * as curl and most scripts do.
 */
final class FloodHttp {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private FloodHttp() {}

  /** A new client of its own, HTTP/1.1. */
  static HttpClient client() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** {@code GET uri} with {@code secret} as the bearer token; none when it is empty, for an agent without ACLs. */
  static HttpRequest get(URI uri, String secret) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET();
    return secret.isEmpty() ? request.build() : request.header("Authorization", "Bearer " + secret).build();
  }

  /** What one reader saw: the latency of every read answered 200, and how many were not. */
  record Reads(Latencies latencies, long refused, long failed, String firstFailure) {
    long served() {
      return latencies.size();
    }
  }

  /**
   * Sends {@code request} one at a time (closed loop) at most {@code perSecond} times a second for
   * {@code duration}, timing each from send to the whole answer. A read that takes longer than its
   * interval delays the next instead of bunching the ones after it, so the rate stays at or under
   * the limit the reader is meant to keep within.
   */
  static Reads read(HttpClient http, HttpRequest request, double perSecond, Duration duration)
      throws InterruptedException {
    long interval = (long) (1e9 / perSecond);
    long end = System.nanoTime() + duration.toNanos();
    Latencies latencies = new Latencies((int) Math.min(1 << 20, perSecond * duration.toSeconds() + 16));
    long refused = 0;
    long failed = 0;
    String firstFailure = null;
    for (long next = System.nanoTime(); next < end; ) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(Duration.ofNanos(wait));
      }
      long t0 = System.nanoTime();
      try {
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        long took = System.nanoTime() - t0;
        if (response.statusCode() == 200) {
          latencies.add(took);
        } else if (response.statusCode() == 429) {
          refused++;
        } else {
          failed++;
          firstFailure = firstFailure != null ? firstFailure : "HTTP " + response.statusCode();
        }
      } catch (IOException e) {
        failed++;
        firstFailure = firstFailure != null ? firstFailure : e.toString();
      }
      next = Math.max(next + interval, t0);
    }
    return new Reads(latencies, refused, failed, firstFailure);
  }

  /**
   * What the flood got: answered 200, 429 (and how many of those said when to retry), anything
   * else, over {@code sending} (from the first request sent to {@link Flood#stop()}).
   */
  record Flooded(long served, long refused, long refusedWithRetryAfter, long other, Duration sending,
      String firstOther) {
    /** The word that starts {@link #line()}. */
    static final String ANSWER = "flooded";

    long requests() {
      return served + refused + other;
    }

    /** Requests sent per second: the rate the flood offered, as fast as its answers came. */
    double offeredPerSecond() {
      return sending.isZero() ? 0 : requests() / (sending.toNanos() / 1e9);
    }

    /** One line for a parent process: {@code flooded SERVED REFUSED RETRY_AFTER OTHER NANOS [FIRST_OTHER]}. */
    String line() {
      return ANSWER + " " + served + " " + refused + " " + refusedWithRetryAfter + " " + other + " " + sending.toNanos()
          + (firstOther == null ? "" : " " + firstOther.replace('\n', ' '));
    }

    /** A {@link #line()} after its first word. */
    static Flooded parse(String fields) {
      String[] f = fields.split(" ", 6);
      return new Flooded(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
          Duration.ofNanos(Long.parseLong(f[4])), f.length > 5 ? f[5] : null);
    }
  }

  /**
   * {@code clients} virtual threads sending {@code request} back to back, as fast as the answers
   * come, until {@link #stop()}.
   */
  static final class Flood {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final LongAdder served = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder retryAfter = new LongAdder();
    private final LongAdder other = new LongAdder();
    private final AtomicReference<String> firstOther = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private final long started = System.nanoTime();

    Flood(HttpClient http, HttpRequest request, int clients) {
      for (int i = 0; i < clients; i++) {
        threads.add(Thread.ofVirtual().name("bench-flood-" + i).start(() -> send(http, request)));
      }
    }

    private void send(HttpClient http, HttpRequest request) {
      while (running.get()) {
        try {
          HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
          switch (response.statusCode()) {
            case 200 -> served.increment();
            case 429 -> {
              refused.increment();
              if (response.headers().firstValue("Retry-After").filter(v -> v.matches("[0-9]+")).isPresent()) {
                retryAfter.increment();
              }
            }
            default -> failure("HTTP " + response.statusCode());
          }
        } catch (IOException e) {
          failure(e.toString());
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private void failure(String what) {
      other.increment();
      firstOther.compareAndSet(null, what);
    }

    /** Stops sending, waits for the requests in flight, and returns what the flood got. */
    Flooded stop() throws InterruptedException {
      running.set(false);
      Duration sending = Duration.ofNanos(System.nanoTime() - started);
      for (Thread thread : threads) {
        thread.join();
      }
      return new Flooded(served.sum(), refused.sum(), retryAfter.sum(), other.sum(), sending, firstOther.get());
    }
  }
}
