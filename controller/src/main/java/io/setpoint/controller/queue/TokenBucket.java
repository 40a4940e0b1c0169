package io.setpoint.controller.queue;

/**
 * A token bucket that never refuses: each reservation takes a token, letting the balance go
 * negative, and answers how long the caller must wait for its token (as {@code rate.Limiter.Reserve}
 * in Go, which client-go's bucket limiter uses). Refilled lazily from the ticker on each call, so it
 * needs no thread. Guarded by the queue's lock.
 */
final class TokenBucket {
  private final double tokensPerNano;
  private final double burst;
  private double tokens;
  private long last;

  TokenBucket(double perSecond, int burst, long now) {
    this.tokensPerNano = perSecond / 1e9;
    this.burst = burst;
    this.tokens = burst;
    this.last = now;
  }

  /** Takes one token and returns the nanoseconds until it is actually available (0 if now). */
  long reserve(long now) {
    long elapsed = now - last;
    if (elapsed > 0) {
      tokens = Math.min(burst, tokens + elapsed * tokensPerNano);
      last = now;
    }
    tokens -= 1;
    return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / tokensPerNano);
  }
}
