package io.setpoint.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * The load of {@code bench scale}: resources 0 to N-1 written once each, by {@code inFlight}
 * virtual threads sharing one HTTP/1.1 client, each sending its next write as soon as its last is
 * answered. Both systems get the same load and the same documents; only the request differs
 * ({@link ScaleSystem#write}). The first answer other than 200 stops it.
 */
final class ScaleLoad {
  /** How long one write may take to be answered. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
  private static final String BEFORE_NAME = "{\"data\":{\"name\":\"";
  private static final String BEFORE_FILLER = "\",\"description\":\"";
  private static final String END = "\"}}";
  /** The smallest {@code -value-bytes}: a document whose description is empty. */
  static final int MIN_BYTES = document(0, 0).length();

  private ScaleLoad() {}

  /** The name of resource {@code i}: {@code artist-000000042}, so that names sort as numbers do. */
  static String name(int i) {
    return String.format(Locale.ROOT, "artist-%09d", i);
  }

  /**
   * Resource {@code i}'s document, exactly {@code bytes} ASCII bytes (at least {@link #MIN_BYTES}):
   * a {@code demo.v2.Artist} as the HTTP API takes it, {@code {"data":{"name":NAME,"description":...}}},
   * the description letters that differ from one resource to the next, so that no store or file
   * gains by repeating them.
   */
  static String document(int i, int bytes) {
    String name = name(i);
    int filler = bytes - BEFORE_NAME.length() - name.length() - BEFORE_FILLER.length() - END.length();
    StringBuilder doc = new StringBuilder(Math.max(bytes, 0)).append(BEFORE_NAME).append(name).append(BEFORE_FILLER);
    SplittableRandom random = new SplittableRandom(i);
    for (int c = 0; c < filler; c++) {
      doc.append((char) ('a' + random.nextInt(26)));
    }
    return doc.append(END).toString();
  }

  /**
   * Sends {@code write.apply(i)} for every {@code i} from 0 to {@code count - 1}, {@code inFlight}
   * at a time, and returns how long it took from the first send to the last answer. Throws, naming
   * the first write that failed and its answer, if any was not answered 200, or if the whole load
   * took longer than {@code timeout}.
   */
  static Duration run(HttpClient http, int count, int inFlight, IntFunction<HttpRequest> write, Duration timeout)
      throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<String> failure = new AtomicReference<>();
    List<Thread> senders = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < Math.min(inFlight, count); t++) {
      senders.add(Thread.ofVirtual().name("bench-scale-load-" + t).start(() -> {
        for (int i = next.getAndIncrement(); i < count && failure.get() == null; i = next.getAndIncrement()) {
          try {
            HttpResponse<String> answer = http.send(write.apply(i), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
              failure.compareAndSet(null, name(i) + " was answered " + answer.statusCode() + ": " + answer.body().strip());
            }
          } catch (IOException e) {
            failure.compareAndSet(null, name(i) + " failed: " + e);
          } catch (InterruptedException e) {
            failure.compareAndSet(null, "interrupted");
            return;
          }
        }
      }));
    }
    long deadline = start + timeout.toNanos();
    for (Thread sender : senders) {
      if (!sender.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
        failure.compareAndSet(null, "the load did not end within " + timeout + " (" + Math.min(next.get(), count)
            + " of " + count + " writes sent)");
        for (Thread s : senders) {
          s.interrupt();
        }
        break;
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("writing resources: " + failure.get());
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
