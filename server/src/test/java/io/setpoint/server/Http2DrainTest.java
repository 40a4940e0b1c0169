package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.setpoint.demo.DemoTypes;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a stopping agent closes an HTTP/2 connection, frame by frame, over a real socket speaking
 * HTTP/2 without TLS: a GOAWAY that still admits every stream, then a PING; a stream the client
 * opens before it answers the PING is still served; once the answer arrives, the final GOAWAY names
 * the last stream and the connection closes.
 */
class Http2DrainTest {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int SETTINGS = 0x4;
  private static final int PING = 0x6;
  private static final int GOAWAY = 0x7;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;
  private static final int ACK = 0x1;
  private static final Duration PROMPTLY = Duration.ofSeconds(10);

  private Agent agent;
  private int port;
  private Socket socket;
  private DataInputStream in;
  private OutputStream out;
  private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
  private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

  /** One frame as read: its type, flags, stream and payload. */
  private record Frame(int type, int flags, int stream, byte[] payload) {
    int goAwayLastStream() {
      return ByteBuffer.wrap(payload).getInt() & 0x7fff_ffff;
    }

    long pingData() {
      return ByteBuffer.wrap(payload).getLong();
    }
  }

  @BeforeEach
  void connect() throws IOException {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
    port = agent.port();
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout((int) PROMPTLY.toMillis());
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
    out.write(PREFACE);
    write(SETTINGS, 0, 0, new byte[0]);
  }

  @AfterEach
  void close() throws IOException {
    socket.close();
    agent.close();
  }

  @Test
  void anIdleConnectionIsToldToGoAwayThenPingedAndClosedOnceTheClientAnswers() throws Exception {
    assertThat(get(1, "/healthz")).isEqualTo("200");

    CompletableFuture<Void> stopped = CompletableFuture.runAsync(agent::close);
    Frame goAway = next(GOAWAY);
    assertThat(goAway.goAwayLastStream()).as("the first GOAWAY still admits every stream").isEqualTo(Integer.MAX_VALUE);
    Frame ping = next(PING);
    assertThat(ping.flags() & ACK).isZero();
    assertThat(ping.pingData()).isEqualTo(Http2Connections.DRAIN_PING);

    write(PING, ACK, 0, ping.payload());
    assertThat(next(GOAWAY).goAwayLastStream()).as("the final GOAWAY names the last stream").isEqualTo(1);
    assertClosed();
    stopped.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aStreamOpenedBeforeThePingIsAnsweredIsServed() throws Exception {
    assertThat(get(1, "/healthz")).isEqualTo("200");

    CompletableFuture<Void> stopped = CompletableFuture.runAsync(agent::close);
    assertThat(next(GOAWAY).goAwayLastStream()).isEqualTo(Integer.MAX_VALUE);
    Frame ping = next(PING);
    // Sent before the answer to the PING, as a client that had not yet read the GOAWAY would.
    request(3, "/healthz");
    write(PING, ACK, 0, ping.payload());

    List<Frame> rest = readUntilClosed();
    assertThat(rest).filteredOn(f -> f.type() == GOAWAY).singleElement()
        .extracting(Frame::goAwayLastStream).isEqualTo(3);
    List<Frame> response = rest.stream().filter(f -> f.stream() == 3).toList();
    assertThat(response).first().extracting(Frame::type).isEqualTo(HEADERS);
    assertThat(decoder.decodeHeaders(3, Unpooled.wrappedBuffer(response.get(0).payload())).status())
        .hasToString("200");
    assertThat(response).last().satisfies(f -> assertThat(f.flags() & END_STREAM).isEqualTo(END_STREAM));
    stopped.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Sends a GET on {@code stream} and returns the response's status. */
  private String get(int stream, String path) throws Exception {
    request(stream, path);
    return status(stream);
  }

  private void request(int stream, String path) throws Exception {
    Http2Headers headers = new DefaultHttp2Headers()
        .method("GET").scheme("http").authority("127.0.0.1:" + port).path(path);
    ByteBuf block = Unpooled.buffer();
    encoder.encodeHeaders(stream, headers, block);
    byte[] bytes = new byte[block.readableBytes()];
    block.readBytes(bytes);
    block.release();
    write(HEADERS, END_HEADERS | END_STREAM, stream, bytes);
  }

  /** Reads the response on {@code stream} to its end; its status. */
  private String status(int stream) throws Exception {
    String status = null;
    while (true) {
      Frame frame = read();
      if (frame.stream() != stream) {
        continue;
      }
      if (frame.type() == HEADERS && status == null) {
        status = decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(frame.payload())).status().toString();
      }
      if ((frame.type() == HEADERS || frame.type() == DATA) && (frame.flags() & END_STREAM) != 0) {
        return status;
      }
    }
  }

  /** The next frame of {@code type}, answering the server's SETTINGS on the way. */
  private Frame next(int type) throws IOException {
    while (true) {
      Frame frame = read();
      if (frame.type() == type) {
        return frame;
      }
    }
  }

  private Frame read() throws IOException {
    int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int stream = in.readInt() & 0x7fff_ffff;
    byte[] payload = new byte[length];
    in.readFully(payload);
    if (type == SETTINGS && (flags & ACK) == 0) {
      write(SETTINGS, ACK, 0, new byte[0]);
    }
    return new Frame(type, flags, stream, payload);
  }

  private void write(int type, int flags, int stream, byte[] payload) throws IOException {
    ByteBuffer frame = ByteBuffer.allocate(9 + payload.length);
    frame.put((byte) (payload.length >>> 16)).putShort((short) payload.length)
        .put((byte) type).put((byte) flags).putInt(stream).put(payload);
    out.write(frame.array());
    out.flush();
  }

  /** The server closes the connection: nothing more arrives, only the end of the stream. */
  private void assertClosed() throws IOException {
    assertThat(readUntilClosed()).as("frames after the final GOAWAY").isEmpty();
  }

  /** Every frame until the server closes the connection. */
  private List<Frame> readUntilClosed() throws IOException {
    List<Frame> frames = new ArrayList<>();
    try {
      while (true) {
        frames.add(read());
      }
    } catch (EOFException closed) {
      return frames;
    }
  }
}
