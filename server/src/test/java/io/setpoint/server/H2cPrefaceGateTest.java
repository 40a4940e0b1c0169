package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link H2cPrefaceGate} on an embedded channel: what leaves, and when. */
class H2cPrefaceGateTest {
  private static final String SWITCHING = "HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: h2c\r\n\r\n";
  private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

  private final EmbeddedChannel channel = new EmbeddedChannel(new H2cPrefaceGate(Duration.ofSeconds(5)));

  private static ByteBuf bytes(String text) {
    return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
  }

  /** Everything written out so far, as text, one entry per buffer. */
  private List<String> sent() {
    List<String> sent = new ArrayList<>();
    ByteBuf next;
    while ((next = channel.readOutbound()) != null) {
      sent.add(next.toString(StandardCharsets.US_ASCII));
      next.release();
    }
    return sent;
  }

  private boolean gated() {
    return channel.pipeline().get(H2cPrefaceGate.class) != null;
  }

  @Test
  void afterA101TheFramesWaitForTheClientsPrefaceAndThenLeaveInOrder() {
    channel.writeOutbound(bytes(SWITCHING));
    ChannelFuture settings = channel.writeOneOutbound(bytes("settings"));
    ChannelFuture data = channel.writeOneOutbound(bytes("data"));
    channel.flushOutbound();

    assertThat(sent()).containsExactly(SWITCHING);
    assertThat(settings.isDone()).isFalse();

    channel.writeInbound(bytes(PREFACE + "client settings"));

    assertThat(sent()).containsExactly("settings", "data");
    assertThat(settings.isSuccess()).isTrue();
    assertThat(data.isSuccess()).isTrue();
    assertThat(gated()).isFalse();
    ByteBuf read = channel.readInbound();
    assertThat(read.toString(StandardCharsets.US_ASCII)).isEqualTo(PREFACE + "client settings");
    read.release();
  }

  @Test
  void framesWrittenInTheSameBufferAsThe101AreSplitOffAndHeld() {
    channel.writeOutbound(bytes(SWITCHING + "settings+headers"));

    assertThat(sent()).containsExactly(SWITCHING);

    channel.writeInbound(bytes(PREFACE));
    assertThat(sent()).containsExactly("settings+headers");
    channel.releaseInbound();
  }

  @Test
  void aPrefaceSplitAcrossReadsStillOpensTheGateOnlyOnceComplete() {
    channel.writeOutbound(bytes(SWITCHING), bytes("frames"));
    assertThat(sent()).containsExactly(SWITCHING);

    channel.writeInbound(bytes(PREFACE.substring(0, 10)));
    assertThat(sent()).isEmpty();
    channel.writeInbound(bytes(PREFACE.substring(10)));

    assertThat(sent()).containsExactly("frames");
    channel.releaseInbound();
  }

  @Test
  void aFirstResponseThatIsNotA101PassesAndTheGateLeaves() {
    channel.writeOutbound(bytes("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"), bytes("more"));

    assertThat(sent()).containsExactly("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok", "more");
    assertThat(gated()).isFalse();
  }

  @Test
  void aClientThatNeverSendsAPrefaceGetsWhatWasHeldOnceTheLimitIsOver() {
    channel.freezeTime();
    channel.writeOutbound(bytes(SWITCHING), bytes("frames"));
    assertThat(sent()).containsExactly(SWITCHING);

    channel.advanceTimeBy(4_999, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(sent()).isEmpty();

    channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(sent()).containsExactly("frames");
    assertThat(gated()).isFalse();
  }

  @Test
  void inboundBytesThatAreNotAPrefaceOpenTheGateAndStillReachTheServer() {
    channel.writeOutbound(bytes(SWITCHING), bytes("frames"));
    assertThat(sent()).containsExactly(SWITCHING);

    channel.writeInbound(bytes("GET / HTTP/1.1\r\n"));

    assertThat(sent()).containsExactly("frames");
    ByteBuf read = channel.readInbound();
    assertThat(read.toString(StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n");
    read.release();
  }

  @Test
  void closingWhileHoldingSendsWhatWasHeldFirst() {
    channel.writeOutbound(bytes(SWITCHING), bytes("goaway"));
    assertThat(sent()).containsExactly(SWITCHING);

    channel.close();

    assertThat(sent()).containsExactly("goaway");
  }
}
