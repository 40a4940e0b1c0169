package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.ListTypesRequest;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.Status.Builder;
import io.setpoint.api.v1.TypeServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ResourceServiceTest {
  @RegisterExtension final LiveAgent live = new LiveAgent();

  private static Artist artist(String name) {
    return Artist.newBuilder().setName(name).build();
  }

  @Test
  void createAssignsUidGenerationVersionDefaultsTenancyAndRunsMutateHook() throws Exception {
    Resource created = live.write(DemoTypes.ARTIST, "miles", artist("Miles Davis"));

    assertThat(created.getId().getUid()).matches(Rules.ULID);
    assertThat(created.getGeneration()).matches(Rules.ULID);
    // The 80 random bits of a ULID must not be derived from its 48-bit timestamp.
    String uid = created.getId().getUid();
    assertThat(uid.substring(10)).doesNotContain(uid.substring(0, 10));
    assertThat(Long.parseLong(created.getVersion())).isPositive();
    assertThat(created.getId().getTenancy()).isEqualTo(Tenancies.of("default", "default"));
    assertThat(created.getData().unpack(Artist.class).getGenre()).isEqualTo(Genre.GENRE_DISCO);
  }

  @Test
  void readFindsTheResourceAndAnOldUidDoesNotMatchANewIncarnation() {
    Resource first = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));
    live.stub().delete(DeleteRequest.newBuilder().setId(first.getId()).build());
    Resource second = live.write(DemoTypes.ARTIST, "miles", artist("Miles again"));

    Resource read = live.stub().read(ReadRequest.newBuilder()
        .setId(LiveAgent.id(DemoTypes.ARTIST, "miles")).setConsistent(true).build()).getResource();
    assertThat(read).isEqualTo(second);
    assertThat(second.getId().getUid()).isNotEqualTo(first.getId().getUid());
    assertThatThrownBy(() -> live.stub().read(ReadRequest.newBuilder().setId(first.getId()).build()))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void writeOfEqualDataAndMetadataIsANoOp() {
    Resource created = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));

    // The stored genre was defaulted by the mutate hook; writing it without genre is still equal.
    Resource again = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));

    assertThat(again.getVersion()).isEqualTo(created.getVersion());
    assertThat(again).isEqualTo(created);
  }

  @Test
  void dataEncodedOutOfFieldOrderIsStoredCanonicallySoItsCanonicalFormIsANoOp() {
    Artist miles = Artist.newBuilder().setName("Miles").setGenre(Genre.GENRE_JAZZ).build();
    // The genre's field before the name's: the same message, other bytes.
    ByteString reordered = Artist.newBuilder().setGenre(Genre.GENRE_JAZZ).build().toByteString()
        .concat(Artist.newBuilder().setName("Miles").build().toByteString());
    Any outOfOrder = Any.newBuilder().setTypeUrl(Any.pack(miles).getTypeUrl()).setValue(reordered).build();
    assertThat(reordered).isNotEqualTo(miles.toByteString());

    Resource created = live.write(Resource.newBuilder()
        .setId(LiveAgent.id(DemoTypes.ARTIST, "miles")).setData(outOfOrder).build());
    assertThat(created.getData().getValue()).isEqualTo(miles.toByteString());

    Resource again = live.write(created.toBuilder().setData(Any.pack(miles)).build());
    assertThat(again).isEqualTo(created);
  }

  @Test
  void metadataChangeKeepsGenerationAndDataChangeReplacesIt() {
    Resource created = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));

    Resource relabelled = live.write(created.toBuilder().putMetadata("team", "jazz").build());
    assertThat(relabelled.getVersion()).isNotEqualTo(created.getVersion());
    assertThat(relabelled.getGeneration()).isEqualTo(created.getGeneration());

    Resource renamed = live.write(relabelled.toBuilder().setData(Any.pack(artist("Miles Davis"))).build());
    assertThat(renamed.getGeneration()).isNotEqualTo(created.getGeneration());
    assertThat(renamed.getId().getUid()).isEqualTo(created.getId().getUid());
  }

  @Test
  void casWriteWithStaleVersionIsAbortedAndWithCurrentVersionSucceeds() {
    Resource created = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));
    Resource updated = live.write(created.toBuilder().setData(Any.pack(artist("M"))).build());

    assertThatThrownBy(() -> live.write(created.toBuilder().setData(Any.pack(artist("X"))).build()))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.ABORTED));
    Resource third = live.write(updated.toBuilder().setData(Any.pack(artist("Y"))).build());
    assertThat(Long.parseLong(third.getVersion())).isGreaterThan(Long.parseLong(updated.getVersion()));
  }

  @Test
  void concurrentBlindWritesAllSucceedThroughTheServerCasLoop() throws Exception {
    live.write(DemoTypes.ARTIST, "hot", artist("start"));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Resource>> writes = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String name = "writer-" + i;
        writes.add(pool.submit(() -> live.write(DemoTypes.ARTIST, "hot", artist(name))));
      }
      List<Long> versions = new ArrayList<>();
      for (Future<Resource> w : writes) {
        versions.add(Long.parseLong(w.get(30, TimeUnit.SECONDS).getVersion()));
      }
      assertThat(versions).doesNotHaveDuplicates().hasSize(40);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void writeStatusStampsTimesKeepsGenerationAndSurvivesDataUpdates() {
    Resource created = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));
    Resource withStatus = writeStatus(created.getId(), created.getGeneration(), Condition.State.STATE_FALSE, "Pending");

    io.setpoint.api.v1.Status status = withStatus.getStatusOrThrow("demo.setpoint.io/artist");
    assertThat(withStatus.getGeneration()).isEqualTo(created.getGeneration());
    assertThat(status.hasUpdatedAt()).isTrue();
    assertThat(status.getConditions(0).hasLastTransitionTime()).isTrue();

    // Same state, new reason: the transition time stays.
    Resource sameState = writeStatus(created.getId(), created.getGeneration(), Condition.State.STATE_FALSE, "StillPending");
    assertThat(sameState.getStatusOrThrow("demo.setpoint.io/artist").getConditions(0).getLastTransitionTime())
        .isEqualTo(status.getConditions(0).getLastTransitionTime());

    // An equal status is a no-op.
    Resource noOp = writeStatus(created.getId(), created.getGeneration(), Condition.State.STATE_FALSE, "StillPending");
    assertThat(noOp.getVersion()).isEqualTo(sameState.getVersion());

    // A data update keeps the statuses.
    Resource updated = live.write(Resource.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles"))
        .setData(Any.pack(artist("Miles Davis"))).build());
    assertThat(updated.getStatusMap()).isEqualTo(sameState.getStatusMap());
  }

  private Resource writeStatus(ID id, String generation, Condition.State state, String reason) {
    Builder status = io.setpoint.api.v1.Status.newBuilder().setObservedGeneration(generation);
    status.addConditionsBuilder().setType("Accepted").setState(state).setReason(reason).setMessage("m");
    return live.stub().writeStatus(WriteStatusRequest.newBuilder()
        .setId(id).setKey("demo.setpoint.io/artist").setStatus(status).build()).getResource();
  }

  @Test
  void listMatchesTenancyWildcardsAndPagesAtOneRevision() {
    for (String p : List.of("p1", "p2")) {
      for (String ns : List.of("n1", "n2")) {
        live.write(Resource.newBuilder()
            .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of(p, ns), "a-" + p + "-" + ns))
            .setData(Any.pack(artist("x"))).build());
      }
    }
    assertThat(names(list("*", "*", "", 0, ""))).hasSize(4);
    assertThat(names(list("p1", "*", "", 0, ""))).containsExactly("a-p1-n1", "a-p1-n2");
    assertThat(names(list("*", "n2", "", 0, ""))).containsExactlyInAnyOrder("a-p1-n2", "a-p2-n2");
    assertThat(names(list("p2", "n1", "a-p2", 0, ""))).containsExactly("a-p2-n1");

    ListResponse first = list("*", "*", "", 3, "");
    assertThat(first.getResourcesCount()).isEqualTo(3);
    // A write between pages is not seen by the second page, which reads at the first's revision.
    live.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("p9", "n9"), "z"))
        .setData(Any.pack(artist("late"))).build());
    ListResponse second = list("*", "*", "", 3, first.getNextPageToken());
    assertThat(second.getRevision()).isEqualTo(first.getRevision());
    assertThat(second.getResourcesCount()).isEqualTo(1);
    assertThat(second.getNextPageToken()).isEmpty();
  }

  private ListResponse list(String partition, String namespace, String prefix, int pageSize, String token) {
    return live.stub().list(ListRequest.newBuilder().setType(DemoTypes.ARTIST)
        .setTenancy(Tenancies.of(partition, namespace)).setNamePrefix(prefix)
        .setPageSize(pageSize).setPageToken(token).build());
  }

  private static List<String> names(ListResponse response) {
    return response.getResourcesList().stream().map(r -> r.getId().getName()).toList();
  }

  @Test
  void listByOwnerReturnsDirectChildrenOfThatIncarnation() {
    Resource owner = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));
    Resource album = live.write(Resource.newBuilder().setId(LiveAgent.id(DemoTypes.ALBUM, "kind-of-blue"))
        .setOwner(owner.getId()).setData(Any.pack(Album.newBuilder().setName("Kind of Blue").build())).build());

    assertThat(live.stub().listByOwner(ListByOwnerRequest.newBuilder().setOwner(owner.getId()).build())
        .getResourcesList()).containsExactly(album);
  }

  @Test
  void deleteIsIdempotentAndChecksVersion() {
    Resource created = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));
    assertThatThrownBy(() -> live.stub().delete(DeleteRequest.newBuilder()
            .setId(created.getId()).setVersion(created.getVersion() + "0").build()))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.ABORTED));

    live.stub().delete(DeleteRequest.newBuilder().setId(created.getId()).setVersion(created.getVersion()).build());
    live.stub().delete(DeleteRequest.newBuilder().setId(created.getId()).build());

    assertThatThrownBy(() -> live.stub().read(ReadRequest.newBuilder().setId(created.getId()).build()))
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void watchSendsSnapshotThenEndOfSnapshotThenChangesAndResumesByRevision() throws Exception {
    Resource existing = live.write(DemoTypes.ARTIST, "miles", artist("Miles"));
    Iterator<WatchEvent> events = ResourceServiceGrpc.newBlockingStub(live.channel())
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .watchList(WatchListRequest.newBuilder().setType(DemoTypes.ARTIST)
            .setTenancy(Tenancies.of("*", "*")).build());

    WatchEvent snapshot = events.next();
    assertThat(snapshot.getUpsert().getResource()).isEqualTo(existing);
    WatchEvent end = events.next();
    assertThat(end.hasEndOfSnapshot()).isTrue();

    Resource added = live.write(DemoTypes.ARTIST, "ella", artist("Ella"));
    WatchEvent upsert = events.next();
    assertThat(upsert.getUpsert().getResource()).isEqualTo(added);
    assertThat(upsert.getRevision()).isEqualTo(Long.parseLong(added.getVersion()));
    live.stub().delete(DeleteRequest.newBuilder().setId(existing.getId()).build());
    WatchEvent deleted = events.next();
    assertThat(deleted.getDelete().getResource().getId()).isEqualTo(existing.getId());

    // Resuming after the upsert replays the delete only, without a snapshot.
    Iterator<WatchEvent> resumed = ResourceServiceGrpc.newBlockingStub(live.channel())
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .watchList(WatchListRequest.newBuilder().setType(DemoTypes.ARTIST)
            .setTenancy(Tenancies.of("*", "*")).setSinceRevision(upsert.getRevision()).build());
    assertThat(resumed.next()).isEqualTo(deleted);
  }

  @Test
  void mutateAndValidateReturnsTheAdmittedResourceAndStoresNothing() {
    Resource dryRun = live.stub().mutateAndValidate(MutateAndValidateRequest.newBuilder()
        .setResource(Resource.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles"))
            .setData(Any.pack(artist("Miles")))).build()).getResource();

    assertThat(dryRun.getId().getTenancy()).isEqualTo(Tenancies.of("default", "default"));
    assertThat(dryRun.getData().is(Artist.class)).isTrue();
    assertThatThrownBy(() -> live.stub().read(ReadRequest.newBuilder()
            .setId(LiveAgent.id(DemoTypes.ARTIST, "miles")).build()))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void typeServiceListsEveryRegisteredTypeWithDescriptors() {
    ListTypesResponse types = TypeServiceGrpc.newBlockingStub(live.channel())
        .listTypes(ListTypesRequest.getDefaultInstance());

    assertThat(types.getTypesList()).extracting(t -> t.getType())
        .contains(DemoTypes.ARTIST, DemoTypes.ALBUM, DemoTypes.RECORD_LABEL, DemoTypes.EXECUTIVE);
    assertThat(types.getDescriptors().getFileList()).extracting(f -> f.getName())
        .contains("setpoint/demo/v2/music.proto", "setpoint/resource/v1/annotations.proto");
  }

  @Test
  void serverReflectionListsTheResourceService() throws Exception {
    LinkedBlockingQueue<ServerReflectionResponse> responses = new LinkedBlockingQueue<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(live.channel())
        .serverReflectionInfo(new StreamObserver<>() {
          @Override public void onNext(ServerReflectionResponse value) { responses.add(value); }
          @Override public void onError(Throwable t) {}
          @Override public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());

    ServerReflectionResponse response = responses.poll(10, TimeUnit.SECONDS);
    requests.onCompleted();
    assertThat(response).isNotNull();
    assertThat(response.getListServicesResponse().getServiceList()).extracting(s -> s.getName())
        .contains("setpoint.resource.v1.ResourceService", "setpoint.resource.v1.TypeService");
  }

  @Test
  void deleteOnlyMarksAResourceWithFinalizersAndTheLastRemovalDeletesIt() {
    Resource created = live.write(Resource.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, "miles"))
        .putMetadata(Finalizers.KEY, "a.example/cleanup b.example/audit")
        .setData(Any.pack(artist("Miles"))).build());
    DeleteRequest delete = DeleteRequest.newBuilder().setId(created.getId()).build();

    live.stub().delete(delete);
    Resource marked = read("miles");
    assertThat(Finalizers.isMarkedForDeletion(marked)).isTrue();
    assertThat(marked.getGeneration()).isEqualTo(created.getGeneration());
    live.stub().delete(delete);
    assertThat(read("miles").getVersion()).as("marking twice is a no-op").isEqualTo(marked.getVersion());

    // While marked: no data changes, no new finalizers; the mark itself is kept when left out.
    assertThatThrownBy(() -> live.write(marked.toBuilder().setData(Any.pack(artist("Changed"))).build()))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getDescription()).contains("resource.data"));
    assertThatThrownBy(() -> live.write(Finalizers.add(marked, "c.example/late")))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getDescription()).contains("finalizers cannot be added"));
    Resource withoutMark = Finalizers.remove(marked, "a.example/cleanup").toBuilder()
        .removeMetadata(Finalizers.DELETION_TIMESTAMP).build();
    Resource oneLeft = live.write(withoutMark);
    assertThat(Finalizers.isMarkedForDeletion(oneLeft)).isTrue();
    assertThat(Finalizers.of(oneLeft)).containsExactly("b.example/audit");

    live.write(Finalizers.remove(oneLeft, "b.example/audit"));

    assertThatThrownBy(() -> read("miles"))
        .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  private Resource read(String name) {
    return live.stub().read(ReadRequest.newBuilder().setId(LiveAgent.id(DemoTypes.ARTIST, name)).build()).getResource();
  }

  @Test
  void partitionScopedTypeDefaultsOnlyItsPartition() {
    Resource label = live.write(DemoTypes.RECORD_LABEL, "blue-note", RecordLabel.newBuilder().setName("Blue Note").build());
    assertThat(label.getId().getTenancy()).isEqualTo(Tenancies.partition("default"));
  }
}
