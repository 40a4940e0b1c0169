package io.setpoint.controller;

import com.google.protobuf.Any;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The lease service as the lease election and the shard group call it: each call bounded by a
 * deadline on the ticker, so that a slow server cannot hold a renew past its renew deadline.
 */
final class LeaseCalls {
  private final SetpointClient client;
  private final Ticker ticker;

  LeaseCalls(SetpointClient client, Ticker ticker) {
    this.client = client;
    this.ticker = ticker;
  }

  /**
   * Waits for {@code call} until {@code deadline} on the ticker (a manual ticker's jumps wake the
   * wait), then cancels it: a renew must not outlast the renew deadline just because the server is
   * slow to answer.
   */
  private <T> T call(CompletableFuture<T> call, long deadline) throws InterruptedException {
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
  Optional<Resource> find(ID id, long deadline) throws InterruptedException {
    try {
      return Optional.of(call(client.async().readConsistent(id), deadline));
    } catch (SetpointException e) {
      if (e.isNotFound()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Creates the lease {@code id} holding {@code lease}; {@code ALREADY_EXISTS} when there is one. */
  Resource create(ID id, Lease lease, long deadline) throws InterruptedException {
    return call(client.async().create(Resource.newBuilder().setId(id).setData(Any.pack(lease)).build()), deadline);
  }

  /**
   * Writes {@code lease} over {@code stored}, a compare-and-swap on its version: {@code ABORTED}
   * when it changed since.
   */
  Resource write(Resource stored, Lease lease, long deadline) throws InterruptedException {
    return call(client.async().write(stored.toBuilder().setData(Any.pack(lease)).build()), deadline);
  }

  /** Deletes {@code stored} if it is still at its version. */
  void delete(Resource stored, long deadline) throws InterruptedException {
    call(client.async().delete(stored.getId(), stored.getVersion()), deadline);
  }

  /** Every resource {@code request} lists. */
  List<Resource> list(ListRequest request, long deadline) throws InterruptedException {
    return call(client.async().listAll(request), deadline);
  }

  /** {@code lease} released: it expires when it was renewed, so it is free at once. */
  static Lease released(Lease lease) {
    return lease.toBuilder().setExpiresAt(lease.getRenewedAt()).build();
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
