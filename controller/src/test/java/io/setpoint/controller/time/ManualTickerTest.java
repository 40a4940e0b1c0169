package io.setpoint.controller.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ManualTickerTest {

  @Test
  void standsStillUntilAdvanced() {
    ManualTicker ticker = new ManualTicker(42);
    assertThat(ticker.read()).isEqualTo(42);
    assertThat(ticker.read()).isEqualTo(42);
    ticker.advance(Duration.ofMillis(3)).advance(Duration.ofNanos(1));
    assertThat(ticker.read()).isEqualTo(42 + 3_000_000 + 1);
    assertThat(ticker.isManual()).isTrue();
  }

  @Test
  void refusesToGoBack() {
    ManualTicker ticker = new ManualTicker();
    assertThatThrownBy(() -> ticker.advance(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ticker.read()).isZero();
  }

  @Test
  void wrapsAroundLikeNanoTime() {
    ManualTicker ticker = new ManualTicker(Long.MAX_VALUE);
    long before = ticker.read();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(ticker.read()).isNegative();
    assertThat(ticker.read() - before).isEqualTo(1_000_000_000L);
  }

  @Test
  void itsClockStandsStillTooAndMovesAsFarAsTheTickerEvenAcrossItsWrapAround() {
    Instant before = Instant.now();
    ManualTicker ticker = new ManualTicker(Long.MAX_VALUE);
    Clock clock = ticker.clock();
    Instant start = clock.instant();
    assertThat(start).isBetween(before, Instant.now());
    assertThat(clock.instant()).isEqualTo(start);

    ticker.advance(Duration.ofSeconds(90)).advance(Duration.ofNanos(1));
    assertThat(clock.instant()).isEqualTo(start.plusSeconds(90).plusNanos(1));
    assertThat(ticker.clock()).isSameAs(clock);
    assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
    assertThat(clock.withZone(ZoneOffset.UTC)).isSameAs(clock);
    assertThatThrownBy(() -> clock.withZone(ZoneId.of("Europe/Paris")))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void callsListenersOnEveryAdvanceUntilClosed() {
    ManualTicker ticker = new ManualTicker();
    AtomicInteger calls = new AtomicInteger();
    long[] seen = new long[1];
    Ticker.Registration registration =
        ticker.onAdvance(
            () -> {
              calls.incrementAndGet();
              seen[0] = ticker.read();
            });
    ticker.advance(Duration.ofSeconds(1));
    ticker.advance(Duration.ZERO);
    assertThat(calls).hasValue(2);
    assertThat(seen[0]).isEqualTo(1_000_000_000L); // the new time is visible to the listener
    registration.close();
    registration.close();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(calls).hasValue(2);
  }

  @Test
  void systemTickerFollowsNanoTimeAndNeverCallsListeners() {
    Ticker system = Ticker.system();
    long a = system.read();
    long b = System.nanoTime();
    assertThat(b - a).isNotNegative();
    assertThat(system.isManual()).isFalse();
    assertThat(system.onAdvance(() -> {})).isSameAs(Ticker.Registration.NONE);
  }
}
