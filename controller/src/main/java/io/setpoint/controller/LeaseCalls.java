package io.setpoint.controller;

import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** What the lease election and the shard group share: timed server calls and lease rules. */
final class LeaseCalls {
  private final Ticker ticker;

  LeaseCalls(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * Waits for {@code call} until {@code deadline} on the ticker (a manual ticker's jumps wake the
   * wait), then cancels it: a renew must not outlast the renew deadline just because the server is
   * slow to answer.
   */
  <T> T call(CompletableFuture<T> call, long deadline) throws InterruptedException {
    Semaphore wake = new Semaphore(0);
    call.whenComplete((result, failure) -> wake.release());
    try (Ticker.Registration ignored = ticker.onAdvance(wake::release)) {
      while (!call.isDone()) {
        long left = deadline - ticker.read();
        if (left <= 0) {
          call.cancel(true);
          throw new IllegalStateException("the server did not answer in time");
        }
        if (ticker.isManual()) {
          wake.acquire();
        } else {
          wake.tryAcquire(left, TimeUnit.NANOSECONDS);
        }
      }
    } catch (InterruptedException e) {
      call.cancel(true);
      throw e;
    }
    try {
      return call.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * Waits {@code period} on the ticker, or less if {@code signal} is released meanwhile; true when
   * it was. A manual ticker's time moves only when advanced, so then the signal is polled.
   */
  boolean sleepUnless(Semaphore signal, Duration period) throws InterruptedException {
    long until = ticker.read() + period.toNanos();
    while (true) {
      long left = until - ticker.read();
      if (left <= 0) {
        return false;
      }
      if (signal.tryAcquire(ticker.isManual() ? TimeUnit.MILLISECONDS.toNanos(10) : left, TimeUnit.NANOSECONDS)) {
        return true;
      }
    }
  }

  /** The lease {@code id}, read linearizably, or empty when there is none. */
  Optional<Resource> find(SetpointClient client, ID id, long deadline) throws InterruptedException {
    try {
      return Optional.of(call(client.async().readConsistent(id), deadline));
    } catch (SetpointException e) {
      if (e.isNotFound()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Checks that lease timings nest: retry period, then renew deadline, then lease duration. */
  static void checkTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new IllegalArgumentException(
          "renewDeadline " + renewDeadline + " must be shorter than leaseDuration " + leaseDuration);
    }
    if (retryPeriod.compareTo(renewDeadline) >= 0) {
      throw new IllegalArgumentException(
          "retryPeriod " + retryPeriod + " must be shorter than renewDeadline " + renewDeadline);
    }
  }

  static Duration positive(String what, Duration d) {
    if (Objects.requireNonNull(d, what).isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
    return d;
  }

  /**
   * A name for this process: the host name (lower-cased, at most {@code hostChars} of it), the
   * process id and a random suffix.
   */
  static String processName(int hostChars) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName().toLowerCase(java.util.Locale.ROOT).replaceAll("[^-a-z0-9]", "-");
    } catch (java.io.IOException e) {
      host = "host";
    }
    host = host.substring(0, Math.min(host.length(), hostChars)).replaceAll("^[^a-z0-9]+|[^a-z0-9]+$", "");
    return (host.isEmpty() ? "host" : host) + "-" + ProcessHandle.current().pid() + "-"
        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
  }
}
