package io.setpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status.Code;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ListTypesRequest;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.ReadResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.TypeServiceGrpc;
import java.io.IOException;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the client puts on the wire, against a fake server that records the token of each call and
 * never answers reads.
 */
@Timeout(30)
class ClientCallOptionsTest {
  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of(SetpointClient.TOKEN_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  private final Queue<String> tokens = new ConcurrentLinkedQueue<>();
  private final Queue<StreamObserver<ReadResponse>> unanswered = new ConcurrentLinkedQueue<>();
  private Server server;

  @BeforeEach
  void start() throws IOException {
    ServerInterceptor recordToken = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String token = headers.get(TOKEN);
        tokens.add(token == null ? "<none>" : token);
        return next.startCall(call, headers);
      }
    };
    TypeServiceGrpc.TypeServiceImplBase types = new TypeServiceGrpc.TypeServiceImplBase() {
      @Override
      public void listTypes(ListTypesRequest request, StreamObserver<ListTypesResponse> out) {
        out.onNext(ListTypesResponse.getDefaultInstance());
        out.onCompleted();
      }
    };
    ResourceServiceGrpc.ResourceServiceImplBase silent = new ResourceServiceGrpc.ResourceServiceImplBase() {
      @Override
      public void read(ReadRequest request, StreamObserver<ReadResponse> out) {
        unanswered.add(out);
      }
    };
    server = NettyServerBuilder.forPort(0)
        .addService(ServerInterceptors.intercept(types, recordToken))
        .addService(silent)
        .build()
        .start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Test
  void theTokenIsSentAsMetadataOnEveryCallAndOmittedWhenUnset() {
    try (SetpointClient withToken = SetpointClient.builder().address(address()).token("s3cret").build();
        SetpointClient without = SetpointClient.connect(address())) {
      withToken.types();
      withToken.types();
      without.types();
    }

    assertThat(tokens).containsExactly("s3cret", "s3cret", "<none>");
  }

  @Test
  void aCallThatOutlivesTheDeadlineFailsWithDeadlineExceeded() {
    try (SetpointClient client =
        SetpointClient.builder().address(address()).deadline(Duration.ofMillis(200)).build()) {
      assertThatThrownBy(() -> client.read(Ids.of(Types.of("demo", "v2", "Artist"), "miles")))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.DEADLINE_EXCEEDED);
            assertThat(e.description()).contains(address());
          });
    }
    assertThat(unanswered).hasSize(1);
  }

  @Test
  void cancellingAnAsyncCallCancelsItOnTheServer() {
    try (SetpointClient client = SetpointClient.connect(address())) {
      CompletableFuture<Resource> pending = client.async().read(Ids.of(Types.of("demo", "v2", "Artist"), "miles"));
      await().atMost(Duration.ofSeconds(10)).until(() -> unanswered.size() == 1);
      ServerCallStreamObserver<ReadResponse> serverSide = (ServerCallStreamObserver<ReadResponse>) unanswered.peek();

      assertThat(pending.cancel(true)).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(serverSide::isCancelled);
    }
  }
}
