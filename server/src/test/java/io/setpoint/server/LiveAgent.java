package io.setpoint.server;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.resource.Registration;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.memory.MemoryBackend;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real agent with the demo types on a free port, and a plaintext gRPC channel to it, per test.
 * Register with {@code @RegisterExtension}: on an instance field, each test gets its own agent; on a
 * static field, the class shares one. Public for the HTTP gateway's tests.
 */
public final class LiveAgent implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  /** Small limits, so the size checks are cheap to reach. */
  public static final int MAX_REQUEST_BYTES = 64 << 10;
  public static final ServiceLimits LIMITS = new ServiceLimits(16 << 10, 100, 1_000);

  private final MemoryBackend backend = new MemoryBackend();
  private final boolean acls;
  private final int maxRequestBytes;
  private Agent agent;
  private ManagedChannel channel;
  private boolean perClass;

  /** An agent without ACLs: every call may do everything. */
  public LiveAgent() {
    this(false);
  }

  private LiveAgent(boolean acls) {
    this(acls, MAX_REQUEST_BYTES);
  }

  private LiveAgent(boolean acls, int maxRequestBytes) {
    this.acls = acls;
    this.maxRequestBytes = maxRequestBytes;
  }

  /** An agent without ACLs that reads requests up to {@code maxRequestBytes}. */
  public static LiveAgent withMaxRequestBytes(int maxRequestBytes) {
    return new LiveAgent(false, maxRequestBytes);
  }

  /** An agent that enforces ACLs (not bootstrapped yet). */
  public static LiveAgent withAcls() {
    return new LiveAgent(true);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    perClass = true;
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    stop();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!perClass) {
      start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    if (!perClass) {
      stop();
    }
  }

  private void start() {
    agent = Agent.builder().port(0).acls(acls).types(DemoTypes::register).backend(backend)
        .maxRequestBytes(maxRequestBytes).limits(LIMITS).start();
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", agent.port()).usePlaintext()
        .maxInboundMessageSize(maxRequestBytes * 4).build();
  }

  private void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    agent.close();
  }

  public MemoryBackend backend() {
    return backend;
  }

  public ManagedChannel channel() {
    return channel;
  }

  public Agent agent() {
    return agent;
  }

  public ResourceServiceGrpc.ResourceServiceBlockingStub stub() {
    return ResourceServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** The channel, sending {@code token} as {@code x-setpoint-token} (none when null). */
  public Channel channel(String token) {
    if (token == null) {
      return channel;
    }
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("x-setpoint-token", Metadata.ASCII_STRING_MARSHALLER), token);
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /** A stub that sends {@code token} (none when null). */
  public ResourceServiceGrpc.ResourceServiceBlockingStub stub(String token) {
    return ResourceServiceGrpc.newBlockingStub(channel(token)).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /** Writes a resource of {@code type} named {@code name} in the default tenancy. */
  public Resource write(Type type, String name, Message data) {
    return write(Resource.newBuilder().setId(Ids.of(type, name)).setData(Any.pack(data)).build());
  }

  public Resource write(Resource resource) {
    return stub().write(WriteRequest.newBuilder().setResource(resource).build()).getResource();
  }

  public static ID id(Type type, String name) {
    return Ids.of(type, name);
  }

  /** The revision plus every stored resource, encoded: equal bytes mean an unchanged store. */
  public byte[] storeBytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(Long.toString(backend.revision()).getBytes(StandardCharsets.UTF_8));
    for (Registration<?> reg : agent.registry().types()) {
      for (Resource r : backend.list(Consistency.STRONG, reg.type(),
          Tenancies.wildcard(reg.scope()), "", 0, "").resources()) {
        out.writeBytes(r.toByteArray());
      }
    }
    return out.toByteArray();
  }
}
