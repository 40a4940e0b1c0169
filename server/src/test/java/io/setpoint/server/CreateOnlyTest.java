package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Create-only writes over gRPC against a real agent: a taken name is never overwritten. */
class CreateOnlyTest {
  private static Resource artist(String name, String displayName) {
    return Resource.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(displayName).build())).build();
  }

  private static WriteRequest createOnly(Resource resource) {
    return WriteRequest.newBuilder().setResource(resource).setCreateOnly(true).build();
  }

  private static Status.Code code(Throwable e) {
    return Status.fromThrowable(e).getCode();
  }

  @Nested
  class WithoutAcls {
    @RegisterExtension final LiveAgent live = new LiveAgent();

    @Test
    void createsAFreeNameAndRefusesATakenOneWithAlreadyExistsChangingNothing() {
      Resource created = live.stub().write(createOnly(artist("miles", "Miles"))).getResource();
      assertThat(created.getId().getUid()).matches(Rules.ULID);
      byte[] before = live.storeBytes();

      // Even the same data again is refused: create-only is not an idempotent apply.
      for (String name : List.of("Miles", "Someone else")) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
            () -> live.stub().write(createOnly(artist("miles", name))));
        assertThat(code(e)).isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(e.getStatus().getDescription())
            .contains("demo.v2.Artist/default/default/miles already exists")
            .contains(created.getId().getUid());
      }
      assertThat(live.storeBytes()).isEqualTo(before);
    }

    @Test
    void concurrentCreatorsOfOneNameHaveExactlyOneWinnerWhoseDataIsStored() throws Exception {
      int creators = 8;
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(creators);
      try {
        List<Future<Resource>> results = new ArrayList<>();
        for (int i = 0; i < creators; i++) {
          Resource mine = artist("miles", "creator " + i);
          results.add(pool.submit(() -> {
            go.await();
            return live.stub().write(createOnly(mine)).getResource();
          }));
        }
        go.countDown();
        List<Resource> winners = new ArrayList<>();
        for (Future<Resource> result : results) {
          try {
            winners.add(result.get());
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(code(e.getCause())).isEqualTo(Status.Code.ALREADY_EXISTS);
          }
        }
        assertThat(winners).hasSize(1);
        Resource stored = live.stub().read(ReadRequest.newBuilder()
            .setId(LiveAgent.id(DemoTypes.ARTIST, "miles")).setConsistent(true).build()).getResource();
        assertThat(stored).isEqualTo(winners.get(0));
      } finally {
        pool.shutdownNow();
      }
    }

    @Test
    void aNameBeingDeletedIsTakenUntilItsLastFinalizerGoesThenFree() {
      Resource created = live.write(artist("miles", "Miles").toBuilder()
          .putMetadata(Finalizers.KEY, "a.example/cleanup").build());
      live.stub().delete(DeleteRequest.newBuilder().setId(created.getId()).build());

      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
          () -> live.stub().write(createOnly(artist("miles", "New Miles"))));
      assertThat(code(e)).isEqualTo(Status.Code.ALREADY_EXISTS);
      assertThat(e.getStatus().getDescription()).contains("being deleted");

      Resource marked = live.stub().read(ReadRequest.newBuilder().setId(created.getId()).build()).getResource();
      live.write(Finalizers.remove(marked, "a.example/cleanup"));
      Resource again = live.stub().write(createOnly(artist("miles", "New Miles"))).getResource();
      assertThat(again.getId().getUid()).isNotEqualTo(created.getId().getUid());
    }

    @Test
    void aUidOrVersionContradictsCreateOnly() {
      Resource created = live.write(artist("miles", "Miles"));
      byte[] before = live.storeBytes();

      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
          () -> live.stub().write(createOnly(created)));
      assertThat(code(e)).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).contains("resource.id.uid").contains("resource.version")
          .contains("create-only");
      assertThat(live.storeBytes()).isEqualTo(before);
    }
  }

  @Nested
  class WithAcls {
    @RegisterExtension final LiveAgent live = LiveAgent.withAcls();

    @Test
    void aWriterThatMayNotReadLearnsOnlyThatTheNameIsTakenAndANonWriterNotEvenThat() {
      AclFixture acl = new AclFixture(live);
      ResourceServiceGrpc.ResourceServiceBlockingStub owner = acl.stub(acl.management());
      Resource created = owner.write(createOnly(artist("miles", "Miles"))).getResource();
      ResourceServiceGrpc.ResourceServiceBlockingStub writer =
          acl.stub(acl.tokenWith("writer", "", rule("demo.v2.Artist", "", "write")));
      ResourceServiceGrpc.ResourceServiceBlockingStub reader =
          acl.stub(acl.tokenWith("reader", "", rule("demo.v2.Artist", "", "read")));

      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
          () -> writer.write(createOnly(artist("miles", "Other"))));
      assertThat(code(e)).isEqualTo(Status.Code.ALREADY_EXISTS);
      assertThat(e.getStatus().getDescription()).contains("miles already exists")
          .doesNotContain(created.getId().getUid());

      // Without write permission the write is refused before anything about the name is told.
      StatusRuntimeException denied = catchThrowableOfType(StatusRuntimeException.class,
          () -> reader.write(createOnly(artist("miles", "Other"))));
      assertThat(code(denied)).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(owner.read(ReadRequest.newBuilder().setId(created.getId()).build()).getResource())
          .isEqualTo(created);
    }
  }
}
