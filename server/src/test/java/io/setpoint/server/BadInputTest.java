package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc.ResourceServiceBlockingStub;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.Executive;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Track;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed requests through the real gRPC server: each gets its documented status code and a
 * message naming the offending field, and leaves the store exactly as it was.
 */
class BadInputTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();

  private static final String VALID_ULID = "01JCZZZZZZZZZZZZZZZZZZZZZZ";
  private static Resource existing;
  private static Resource existingAlbum;

  /** One bad request: what to send, the code it must get, and text its message must hold. */
  record Case(String name, Function<ResourceServiceBlockingStub, Object> call, Code code, String field) {
    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeAll
  static void storeSomething() {
    existing = live.write(DemoTypes.ARTIST, "existing", Artist.newBuilder().setName("Existing").build());
    existingAlbum = live.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ALBUM, "owned"))
        .setOwner(existing.getId()).setData(Any.pack(Album.newBuilder().setName("Owned").build())).build());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badRequestGetsItsCodeNamesTheFieldAndChangesNothing(Case c) {
    byte[] before = storeBytes();

    assertThatThrownBy(() -> drain(c.call().apply(live.stub())))
        .satisfies(e -> {
          Status status = Status.fromThrowable(e);
          assertThat(status.getCode()).as("code of %s (%s)", c.name(), status).isEqualTo(c.code());
          assertThat(status.getDescription()).as("message of %s", c.name()).contains(c.field());
        });

    assertThat(storeBytes()).as("store after %s", c.name()).isEqualTo(before);
  }

  @Test
  void thereAreAtLeastFortyDistinctCases() {
    List<Case> all = cases().toList();
    assertThat(all).hasSizeGreaterThanOrEqualTo(40);
    assertThat(all.stream().map(Case::name).distinct().count()).isEqualTo(all.size());
  }

  /** Streams fail on their first element; unary calls have already failed. */
  private static void drain(Object result) {
    if (result instanceof java.util.Iterator<?> it) {
      it.hasNext();
    }
  }

  private static byte[] storeBytes() {
    return live.storeBytes();
  }

  // ---- request builders ----

  private static Resource artist(ID id, String name) {
    return Resource.newBuilder().setId(id).setData(Any.pack(Artist.newBuilder().setName(name).build())).build();
  }

  private static Resource artist(String resourceName) {
    return artist(Ids.of(DemoTypes.ARTIST, resourceName), "Someone");
  }

  private static ID artistId(Tenancy tenancy, String name) {
    return Ids.of(DemoTypes.ARTIST, tenancy, name);
  }

  private static Function<ResourceServiceBlockingStub, Object> write(Resource r) {
    return stub -> stub.write(WriteRequest.newBuilder().setResource(r).build());
  }

  private static Function<ResourceServiceBlockingStub, Object> writeExisting(
      java.util.function.UnaryOperator<Resource.Builder> change) {
    return stub -> stub.write(WriteRequest.newBuilder()
        .setResource(change.apply(existing.toBuilder().setData(Any.pack(Artist.newBuilder().setName("Changed").build())))).build());
  }

  private static Function<ResourceServiceBlockingStub, Object> status(
      java.util.function.UnaryOperator<WriteStatusRequest.Builder> change) {
    WriteStatusRequest.Builder valid = WriteStatusRequest.newBuilder().setKey("demo.setpoint.io/artist");
    valid.getStatusBuilder().addConditionsBuilder().setType("Accepted").setState(Condition.State.STATE_TRUE);
    return stub -> stub.writeStatus(change.apply(valid.setId(existing.getId())).build());
  }

  private static Function<ResourceServiceBlockingStub, Object> list(java.util.function.UnaryOperator<ListRequest.Builder> change) {
    return stub -> stub.list(change.apply(ListRequest.newBuilder().setType(DemoTypes.ARTIST)).build());
  }

  private static Resource withType(Type type) {
    return artist(Ids.of(type, "x"), "Someone");
  }

  private static String repeat(char c, int n) {
    return String.valueOf(c).repeat(n);
  }

  static Stream<Case> cases() {
    Type artist = DemoTypes.ARTIST;
    return Stream.of(
        // ---- Write: envelope ----
        new Case("write without resource", stub -> stub.write(WriteRequest.getDefaultInstance()), Code.INVALID_ARGUMENT, "resource"),
        new Case("write without id", write(Resource.newBuilder().setData(Any.pack(Artist.getDefaultInstance())).build()), Code.INVALID_ARGUMENT, "resource.id"),
        new Case("write without type", write(artist(ID.newBuilder().setName("x").build(), "n")), Code.INVALID_ARGUMENT, "resource.id.type"),
        new Case("group with capitals", write(withType(Types.of("Demo", "v2", "Artist"))), Code.INVALID_ARGUMENT, "resource.id.type.group"),
        new Case("group_version without v", write(withType(Types.of("demo", "2", "Artist"))), Code.INVALID_ARGUMENT, "resource.id.type.group_version"),
        new Case("kind in lower case", write(withType(Types.of("demo", "v2", "artist"))), Code.INVALID_ARGUMENT, "resource.id.type.kind"),
        new Case("unknown type", write(withType(Types.of("demo", "v9", "Artist"))), Code.INVALID_ARGUMENT, "unknown type demo.v9.Artist"),
        new Case("empty name", write(artist("")), Code.INVALID_ARGUMENT, "resource.id.name"),
        new Case("name with capitals", write(artist("Miles")), Code.INVALID_ARGUMENT, "resource.id.name"),
        new Case("name with underscore", write(artist("miles_davis")), Code.INVALID_ARGUMENT, "resource.id.name"),
        new Case("name of 64 characters", write(artist(repeat('a', 64))), Code.INVALID_ARGUMENT, "resource.id.name"),
        new Case("name ending in a dash", write(artist("miles-")), Code.INVALID_ARGUMENT, "resource.id.name"),
        new Case("malformed uid", write(artist(artistId(Tenancy.getDefaultInstance(), "x").toBuilder().setUid("not-a-ulid").build(), "n")), Code.INVALID_ARGUMENT, "resource.id.uid"),
        // ---- Write: tenancy per scope ----
        new Case("wildcard partition on write", write(artist(artistId(Tenancies.of("*", "default"), "x"), "n")), Code.INVALID_ARGUMENT, "resource.id.tenancy.partition"),
        new Case("wildcard namespace on write", write(artist(artistId(Tenancies.of("default", "*"), "x"), "n")), Code.INVALID_ARGUMENT, "resource.id.tenancy.namespace"),
        new Case("partition that is no DNS label", write(artist(artistId(Tenancies.of("Team A", "default"), "x"), "n")), Code.INVALID_ARGUMENT, "resource.id.tenancy.partition"),
        new Case("namespace that is no DNS label", write(artist(artistId(Tenancies.of("default", "ns.1"), "x"), "n")), Code.INVALID_ARGUMENT, "resource.id.tenancy.namespace"),
        new Case("namespace on a partition-scoped type", write(Resource.newBuilder().setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.of("default", "ns"), "label"))
            .setData(Any.pack(RecordLabel.newBuilder().setName("L").build())).build()), Code.INVALID_ARGUMENT, "resource.id.tenancy.namespace"),
        new Case("partition on a cluster-scoped type", write(Resource.newBuilder().setId(Ids.of(DemoTypes.EXECUTIVE, Tenancies.partition("p"), "boss"))
            .setData(Any.pack(Executive.newBuilder().setPosition("CEO").build())).build()), Code.INVALID_ARGUMENT, "resource.id.tenancy.partition"),
        new Case("namespace on a cluster-scoped type", write(Resource.newBuilder().setId(Ids.of(DemoTypes.EXECUTIVE, Tenancies.of("", "ns"), "boss"))
            .setData(Any.pack(Executive.newBuilder().setPosition("CEO").build())).build()), Code.INVALID_ARGUMENT, "resource.id.tenancy.namespace"),
        // ---- Write: data ----
        new Case("missing data", write(Resource.newBuilder().setId(Ids.of(artist, "x")).build()), Code.INVALID_ARGUMENT, "resource.data"),
        new Case("data of another type", write(Resource.newBuilder().setId(Ids.of(artist, "x"))
            .setData(Any.pack(Album.newBuilder().setName("A").build())).build()), Code.INVALID_ARGUMENT, "resource.data"),
        new Case("data without type_url", write(Resource.newBuilder().setId(Ids.of(artist, "x"))
            .setData(Any.newBuilder().setValue(ByteString.copyFromUtf8("x"))).build()), Code.INVALID_ARGUMENT, "resource.data"),
        new Case("undecodable data", write(Resource.newBuilder().setId(Ids.of(artist, "x"))
            .setData(Any.newBuilder().setTypeUrl("type.googleapis.com/setpoint.demo.v2.Artist")
                .setValue(ByteString.copyFrom(new byte[] {(byte) 0x0a, (byte) 0xff, 0x01}))).build()), Code.INVALID_ARGUMENT, "resource.data"),
        new Case("artist without name (validate hook)", write(artist(Ids.of(artist, "x"), "")), Code.INVALID_ARGUMENT, "resource.data.name"),
        new Case("album track without name", write(Resource.newBuilder().setId(Ids.of(DemoTypes.ALBUM, "x")).setData(Any.pack(Album.newBuilder().setName("A")
            .addTracks(Track.newBuilder().setName("one")).addTracks(Track.getDefaultInstance()).build())).build()), Code.INVALID_ARGUMENT, "resource.data.tracks[1].name"),
        // ---- Write: metadata, version ----
        new Case("metadata key starting with a dash", write(artist("x").toBuilder().putMetadata("-bad", "v").build()), Code.INVALID_ARGUMENT, "resource.metadata"),
        new Case("metadata value too long", write(artist("x").toBuilder().putMetadata("k", repeat('v', 4097)).build()), Code.INVALID_ARGUMENT, "resource.metadata"),
        new Case("too many metadata entries", write(artist("x").toBuilder().putAllMetadata(
            IntStream.range(0, 65).boxed().collect(java.util.stream.Collectors.toMap(i -> "k" + i, i -> "v"))).build()), Code.INVALID_ARGUMENT, "resource.metadata"),
        new Case("deletionTimestamp set by a client", write(artist("x").toBuilder().putMetadata("deletionTimestamp", "2026-01-01T00:00:00Z").build()), Code.INVALID_ARGUMENT, "resource.metadata"),
        new Case("finalizer that is no name", write(artist("x").toBuilder().putMetadata("finalizers", "ok.example/a -bad-").build()), Code.INVALID_ARGUMENT, "resource.metadata"),
        new Case("version that is not a number", write(artist("x").toBuilder().setVersion("abc").build()), Code.INVALID_ARGUMENT, "resource.version"),
        // ---- Write: owner ----
        new Case("owner without uid", write(artist("x").toBuilder().setOwner(Ids.of(DemoTypes.RECORD_LABEL, "label")).build()), Code.INVALID_ARGUMENT, "resource.owner.uid"),
        new Case("owner of unknown type", write(artist("x").toBuilder().setOwner(Ids.of(Types.of("nope", "v1", "Thing"), "t").toBuilder().setUid(VALID_ULID)).build()), Code.INVALID_ARGUMENT, "resource.owner.type"),
        new Case("owner that does not exist", write(artist("x").toBuilder().setOwner(Ids.of(DemoTypes.RECORD_LABEL, "ghost").toBuilder().setUid(VALID_ULID)).build()), Code.INVALID_ARGUMENT, "resource.owner"),
        new Case("owner that is itself", write(artist("x").toBuilder().setOwner(Ids.of(artist, "x").toBuilder().setUid(VALID_ULID)).build()), Code.INVALID_ARGUMENT, "resource.owner"),
        new Case("owner change on update", stub -> stub.write(WriteRequest.newBuilder().setResource(existingAlbum.toBuilder().setOwner(existingAlbum.getId())
            .setOwner(ID.newBuilder(existing.getId()).setName("other"))).build()), Code.INVALID_ARGUMENT, "resource.owner"),
        // ---- Write: status and CAS ----
        new Case("status on create", write(artist("x").toBuilder().putStatus("k", io.setpoint.api.v1.Status.getDefaultInstance()).build()), Code.INVALID_ARGUMENT, "resource.status"),
        new Case("status change on update", writeExisting(b -> b.putStatus("k", io.setpoint.api.v1.Status.getDefaultInstance())), Code.INVALID_ARGUMENT, "resource.status"),
        new Case("version that does not match", writeExisting(b -> b.setVersion(existing.getVersion() + "0")), Code.ABORTED, "version"),
        new Case("version on a resource that does not exist", write(artist("absent").toBuilder().setVersion("7").build()), Code.ABORTED, "version"),
        new Case("uid of another incarnation", writeExisting(b -> b.setId(existing.getId().toBuilder().setUid(VALID_ULID))), Code.FAILED_PRECONDITION, "uid"),
        new Case("uid on a create", write(artist(Ids.of(artist, "absent").toBuilder().setUid(VALID_ULID).build(), "n")), Code.NOT_FOUND, "absent"),
        // ---- Sizes ----
        new Case("resource over the size limit", write(artist("big").toBuilder().setData(Any.pack(Artist.newBuilder().setName("Big")
            .setDescription(repeat('d', 20 << 10)).build())).build()), Code.RESOURCE_EXHAUSTED, "resource"),
        new Case("request over the message limit", write(artist("huge").toBuilder().setData(Any.pack(Artist.newBuilder().setName("Huge")
            .setDescription(repeat('d', 80 << 10)).build())).build()), Code.RESOURCE_EXHAUSTED, "size"),
        // ---- Read ----
        new Case("read without id", stub -> stub.read(ReadRequest.getDefaultInstance()), Code.INVALID_ARGUMENT, "id"),
        new Case("read of unknown type", stub -> stub.read(ReadRequest.newBuilder().setId(Ids.of(Types.of("demo", "v1", "Artist"), "x")).build()), Code.INVALID_ARGUMENT, "id.type"),
        new Case("read with a wildcard", stub -> stub.read(ReadRequest.newBuilder().setId(artistId(Tenancies.of("*", "*"), "x")).build()), Code.INVALID_ARGUMENT, "id.tenancy.partition"),
        new Case("read of what does not exist", stub -> stub.read(ReadRequest.newBuilder().setId(Ids.of(artist, "absent")).build()), Code.NOT_FOUND, "absent"),
        // ---- WriteStatus ----
        new Case("status without uid", status(b -> b.setId(Ids.withoutUid(existing.getId()))), Code.INVALID_ARGUMENT, "id.uid"),
        new Case("status for another incarnation", status(b -> b.setId(existing.getId().toBuilder().setUid(VALID_ULID))), Code.FAILED_PRECONDITION, "uid"),
        new Case("status of what does not exist", status(b -> b.setId(Ids.of(artist, "absent").toBuilder().setUid(VALID_ULID))), Code.NOT_FOUND, "absent"),
        new Case("status without key", status(b -> b.setKey("")), Code.INVALID_ARGUMENT, "key"),
        new Case("status key with spaces", status(b -> b.setKey("my key")), Code.INVALID_ARGUMENT, "key"),
        new Case("status missing", status(b -> b.clearStatus()), Code.INVALID_ARGUMENT, "status"),
        new Case("condition type twice", status(b -> b.setStatus(b.getStatus().toBuilder().addConditions(b.getStatus().getConditions(0)))), Code.INVALID_ARGUMENT, "status.conditions[1].type"),
        new Case("condition type in lower case", status(b -> b.setStatus(b.getStatus().toBuilder().setConditions(0, Condition.newBuilder().setType("accepted")))), Code.INVALID_ARGUMENT, "status.conditions[0].type"),
        new Case("condition state out of range", status(b -> b.setStatus(b.getStatus().toBuilder().setConditions(0, Condition.newBuilder().setType("Accepted").setStateValue(7)))), Code.INVALID_ARGUMENT, "status.conditions[0].state"),
        new Case("condition reason with spaces", status(b -> b.setStatus(b.getStatus().toBuilder().setConditions(0, Condition.newBuilder().setType("Accepted").setReason("not ok")))), Code.INVALID_ARGUMENT, "status.conditions[0].reason"),
        new Case("observed generation that is no ULID", status(b -> b.setStatus(b.getStatus().toBuilder().setObservedGeneration("gen-1"))), Code.INVALID_ARGUMENT, "status.observed_generation"),
        new Case("status version that does not match", status(b -> b.setVersion(existing.getVersion() + "0")), Code.ABORTED, "version"),
        // ---- List, ListByOwner ----
        new Case("list without type", stub -> stub.list(ListRequest.getDefaultInstance()), Code.INVALID_ARGUMENT, "type"),
        new Case("list with a bad name prefix", list(b -> b.setNamePrefix("Big")), Code.INVALID_ARGUMENT, "name_prefix"),
        new Case("list page too large", list(b -> b.setPageSize(1_001)), Code.INVALID_ARGUMENT, "page_size"),
        new Case("list with a forged page token", list(b -> b.setPageToken("bm90LWEtdG9rZW4")), Code.INVALID_ARGUMENT, "page_token"),
        new Case("list cluster type with a partition", stub -> stub.list(ListRequest.newBuilder().setType(DemoTypes.EXECUTIVE).setTenancy(Tenancies.partition("p")).build()), Code.INVALID_ARGUMENT, "tenancy.partition"),
        new Case("list by owner without uid", stub -> stub.listByOwner(ListByOwnerRequest.newBuilder().setOwner(Ids.withoutUid(existing.getId())).build()), Code.INVALID_ARGUMENT, "owner.uid"),
        // ---- Delete ----
        new Case("delete without id", stub -> stub.delete(DeleteRequest.getDefaultInstance()), Code.INVALID_ARGUMENT, "id"),
        new Case("delete with a malformed version", stub -> stub.delete(DeleteRequest.newBuilder().setId(existing.getId()).setVersion("v1").build()), Code.INVALID_ARGUMENT, "version"),
        new Case("delete with a version that does not match", stub -> stub.delete(DeleteRequest.newBuilder().setId(existing.getId()).setVersion(existing.getVersion() + "0").build()), Code.ABORTED, "version"),
        // ---- WatchList, MutateAndValidate ----
        new Case("watch of unknown type", stub -> stub.watchList(WatchListRequest.newBuilder().setType(Types.of("demo", "v3", "Song")).build()), Code.INVALID_ARGUMENT, "type"),
        new Case("watch from a revision the store has not reached", stub -> stub.watchList(WatchListRequest.newBuilder().setType(artist)
            .setSinceRevision(1_000_000).build()), Code.INVALID_ARGUMENT, "since_revision: revision 1000000 is ahead of this store, which is at revision"),
        new Case("watch from revision 2^64-1", stub -> stub.watchList(WatchListRequest.newBuilder().setType(artist)
            .setSinceRevision(-1L).build()), Code.INVALID_ARGUMENT, "since_revision: revision 18446744073709551615 is ahead"),
        new Case("watch with a bad name prefix", stub -> stub.watchList(WatchListRequest.newBuilder().setType(artist).setNamePrefix("A*").build()), Code.INVALID_ARGUMENT, "name_prefix"),
        new Case("dry run of an invalid artist", stub -> stub.mutateAndValidate(MutateAndValidateRequest.newBuilder().setResource(artist(Ids.of(artist, "x"), "")).build()), Code.INVALID_ARGUMENT, "resource.data.name"));
  }
}
