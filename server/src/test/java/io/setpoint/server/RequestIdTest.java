package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.storage.Consistency;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Writes sent again with their request id, as a client does when it lost the answer: answered with
 * what the first stored, over gRPC against a real agent, whatever happened to the resource since.
 */
class RequestIdTest {
  @RegisterExtension final LiveAgent live = new LiveAgent();

  private static Resource artist(String displayName) {
    return Resource.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles"))
        .setData(Any.pack(Artist.newBuilder().setName(displayName).build())).build();
  }

  private Resource write(Resource resource, String requestId) {
    return live.stub().write(WriteRequest.newBuilder().setResource(resource).setRequestId(requestId).build())
        .getResource();
  }

  @Test
  void aCompareAndSwapSentAgainIsAnsweredWithTheFirstsResultNotAConflict() {
    Resource created = write(artist("Miles"), "");
    Resource update = artist("Miles Davis").toBuilder().setVersion(created.getVersion()).build();
    Resource updated = write(update, "update-1");
    byte[] before = live.storeBytes();

    assertThat(write(update, "update-1")).isEqualTo(updated);
    assertThat(live.storeBytes()).as("nothing was written").isEqualTo(before);

    // Another writer changes it; the repeat still gets the first's answer and changes nothing.
    Resource other = write(artist("Someone").toBuilder().setVersion(updated.getVersion()).build(), "");
    assertThat(write(update, "update-1")).isEqualTo(updated);
    assertThat(live.backend().read(Consistency.STRONG, other.getId())).isEqualTo(other);

    // Without the id, the same request is the conflict it looks like.
    StatusRuntimeException conflict = catchThrowableOfType(StatusRuntimeException.class, () -> write(update, ""));
    assertThat(conflict.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
  }

  @Test
  void aCreateOnlySentAgainIsAnsweredWithTheCreatedResource() {
    WriteRequest create = WriteRequest.newBuilder()
        .setResource(artist("Miles")).setCreateOnly(true).setRequestId("create-1").build();
    Resource created = live.stub().write(create).getResource();
    assertThat(live.stub().write(create).getResource()).isEqualTo(created);

    StatusRuntimeException taken = catchThrowableOfType(StatusRuntimeException.class,
        () -> live.stub().write(create.toBuilder().setRequestId("create-2").build()));
    assertThat(taken.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
  }

  @Test
  void aStatusCompareAndSwapSentAgainIsAnsweredWithWhatItStored() {
    Resource created = write(artist("Miles"), "");
    WriteStatusRequest status = WriteStatusRequest.newBuilder().setId(created.getId()).setKey("demo.setpoint.io/test")
        .setStatus(io.setpoint.api.v1.Status.newBuilder().setObservedGeneration(created.getGeneration())).setVersion(created.getVersion())
        .setRequestId("status-1").build();
    Resource written = live.stub().writeStatus(status).getResource();
    byte[] before = live.storeBytes();

    assertThat(live.stub().writeStatus(status).getResource()).isEqualTo(written);
    assertThat(live.storeBytes()).as("nothing was written").isEqualTo(before);
    StatusRuntimeException conflict = catchThrowableOfType(StatusRuntimeException.class,
        () -> live.stub().writeStatus(status.toBuilder().setRequestId("status-2").build()));
    assertThat(conflict.getStatus().getCode()).as("a new id is a new write, and its version moved on")
        .isEqualTo(Status.Code.ABORTED);
  }

  @Test
  void aDeleteSentAgainDeletesNothingEvenWhatWasCreatedSinceUnderTheName() {
    write(artist("Miles"), "");
    DeleteRequest delete = DeleteRequest.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles"))
        .setRequestId("delete-1").build();
    live.stub().delete(delete);
    Resource again = write(artist("Miles again"), "");

    live.stub().delete(delete);

    assertThat(live.backend().read(Consistency.STRONG, again.getId())).isEqualTo(again);
    StatusRuntimeException bad = catchThrowableOfType(StatusRuntimeException.class,
        () -> live.stub().delete(delete.toBuilder().setRequestId("has space").build()));
    assertThat(bad.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(bad.getStatus().getDescription()).contains("request_id");
  }

  @Test
  void theJavaClientKeepsARequestIdItsCallerGave() {
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + live.agent().port())) {
      Resource first = client.write(WriteRequest.newBuilder().setResource(artist("Miles")).setRequestId("mine-1").build());
      Resource other = client.write(artist("Someone"));

      // The caller's own retry: the same id again is the first write, not a second.
      assertThat(client.write(WriteRequest.newBuilder().setResource(artist("Miles")).setRequestId("mine-1").build()))
          .isEqualTo(first);
      assertThat(live.backend().read(Consistency.STRONG, first.getId()).getVersion()).isEqualTo(other.getVersion());
      client.delete(DeleteRequest.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles")).setRequestId("mine-2").build());
      Resource recreated = client.write(artist("Back"));
      client.delete(DeleteRequest.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles")).setRequestId("mine-2").build());
      assertThat(live.backend().read(Consistency.STRONG, recreated.getId()).getVersion()).isEqualTo(recreated.getVersion());
    }
  }

  @Test
  void aMalformedRequestIdIsRefusedNamingTheFieldAndWritesNothing() {
    byte[] before = live.storeBytes();
    for (String bad : new String[] {"has space", "x".repeat(129), "ünïcode"}) {
      StatusRuntimeException e =
          catchThrowableOfType(StatusRuntimeException.class, () -> write(artist("Miles"), bad));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).contains("request_id").contains("at most 128 of [A-Za-z0-9._~:-]");
    }
    assertThat(live.storeBytes()).isEqualTo(before);
  }
}
