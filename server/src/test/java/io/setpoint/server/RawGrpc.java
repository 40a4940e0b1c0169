package io.setpoint.server;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends request bytes as they are, undecoded, to a gRPC method: what a client with another
 * protobuf library, a bug or ill will may send. Public for the HTTP package's fuzz test.
 */
public final class RawGrpc {
  private final Channel channel;

  public RawGrpc(Channel channel) {
    this.channel = channel;
  }

  /**
   * Calls {@code fullMethod} ({@code setpoint.api.v1.ResourceService/Write}) with {@code request}
   * and returns how it ended: {@link Status#OK} or its failure. A server-streaming method is read
   * up to its first message.
   */
  public Status call(String fullMethod, byte[] request, boolean serverStreaming) {
    MethodDescriptor<byte[], byte[]> method = MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(serverStreaming ? MethodDescriptor.MethodType.SERVER_STREAMING : MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethod)
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();
    ClientCall<byte[], byte[]> call = channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    CompletableFuture<Status> ended = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        // The first answer is enough: a watch that started would stream on.
        ended.complete(Status.OK);
        call.cancel("answered", null);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        ended.complete(status);
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage(request);
    call.halfClose();
    return ended.join();
  }

  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
}
