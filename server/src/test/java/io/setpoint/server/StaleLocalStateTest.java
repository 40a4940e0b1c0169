package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.memory.MemoryBackend;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes start from the member's local (eventual) state and fall back to a linearizable read. A
 * member whose local state lags, as a Raft follower's may, must still give every write the answer
 * the current state calls for: no false conflict, no false no-op, no lost update. Each case runs
 * through both entry points: {@code write}, which the HTTP gateway calls, and {@code writeAsync},
 * which the gRPC service calls and which takes its fallbacks on another executor.
 */
class StaleLocalStateTest {
  /** How a test calls the handler. */
  enum Entry {
    WRITE,
    WRITE_ASYNC
  }

  private final ExecutorService blocking = Executors.newVirtualThreadPerTaskExecutor();
  private final MemoryBackend store = new MemoryBackend();
  private final LaggingMember member = new LaggingMember(store);
  private final ResourceHandler handler =
      DemoHandlers.over(member);
  private final ID nina = Ids.of(DemoTypes.ARTIST, "nina");

  @ParameterizedTest
  @EnumSource(Entry.class)
  void aCasWithTheCurrentVersionSucceedsWhileTheLocalStateStillHasTheOldOne(Entry entry) {
    write(entry, artist("Nina", ""));
    member.freeze();
    Resource current = write(entry, artist("Nina Simone", ""));

    Resource stored = write(entry, artist("Eunice Waymon", current.getVersion()));

    assertThat(data(stored)).isEqualTo("Eunice Waymon");
    assertThat(storedName()).isEqualTo("Eunice Waymon");
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void writingBackWhatTheLaggingStateHoldsIsStoredNotTakenForANoOp(Entry entry) {
    write(entry, artist("Nina", ""));
    member.freeze();
    write(entry, artist("Nina Simone", ""));

    Resource stored = write(entry, artist("Nina", ""));

    assertThat(data(stored)).isEqualTo("Nina");
    assertThat(storedName()).isEqualTo("Nina");
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void aCreateOverAResourceTheLaggingStateDoesNotHaveYetUpdatesIt(Entry entry) {
    member.freeze();
    write(entry, artist("Nina", ""));

    Resource stored = write(entry, artist("Nina Simone", ""));

    assertThat(data(stored)).isEqualTo("Nina Simone");
    assertThat(stored.getGeneration()).isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void aStaleVersionIsStillAConflict(Entry entry) {
    Resource first = write(entry, artist("Nina", ""));
    write(entry, artist("Nina Simone", ""));
    member.freeze();

    assertThatThrownBy(() -> write(entry, artist("Eunice", first.getVersion())))
        .hasMessageContaining("does not match the stored version");
    assertThat(storedName()).isEqualTo("Nina Simone");
  }

  @AfterEach
  void stopExecutor() {
    blocking.close();
  }

  private Resource write(Entry entry, Resource resource) {
    WriteRequest request = WriteRequest.newBuilder().setResource(resource).build();
    if (entry == Entry.WRITE) {
      return handler.write(Authorizer.allowAll(), request).getResource();
    }
    try {
      return handler.writeAsync(Authorizer.allowAll(), request, blocking).join().getResource();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  /** The name in the store now, read linearizably under the id the service gave the resource. */
  private String storedName() {
    ID canonical = store.list(Consistency.STRONG, DemoTypes.ARTIST, LaggingMember.ANY_TENANCY, "", 0, "")
        .resources().getFirst().getId();
    return data(store.read(Consistency.STRONG, Ids.withoutUid(canonical)));
  }

  private Resource artist(String name, String version) {
    return Resource.newBuilder()
        .setId(nina)
        .setVersion(version)
        .setData(Any.pack(Artist.newBuilder().setName(name).build()))
        .build();
  }

  private static String data(Resource resource) {
    try {
      return resource.getData().unpack(Artist.class).getName();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }


  /** Eventual reads answer from the state as it was when {@link #freeze()} was called. */
  private static final class LaggingMember extends ForwardingBackend {
    private static final Tenancy ANY_TENANCY = Tenancy.newBuilder().setPartition("*").setNamespace("*").build();
    private final Backend delegate;
    private Map<ID, Resource> frozen;

    LaggingMember(Backend delegate) {
      super(delegate);
      this.delegate = delegate;
    }

    void freeze() {
      frozen = new HashMap<>();
      delegate.list(Consistency.STRONG, DemoTypes.ARTIST, ANY_TENANCY, "", 0, "")
          .resources()
          .forEach(r -> frozen.put(Ids.withoutUid(r.getId()), r));
    }

    @Override
    public Resource read(Consistency consistency, ID id) {
      if (consistency == Consistency.EVENTUAL && frozen != null) {
        Resource old = frozen.get(Ids.withoutUid(id));
        if (old == null) {
          throw new StorageException(StorageException.Reason.NOT_FOUND, Ids.format(id) + " not found");
        }
        return old;
      }
      return super.read(consistency, id);
    }
  }
}
