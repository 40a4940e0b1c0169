package io.setpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.TypeInfo;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import io.setpoint.server.Agent;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client against a real agent with the demo types. Each test works in its own namespace. */
@Timeout(60)
class SetpointClientTest {
  private static Agent agent;
  private static SetpointClient client;

  @BeforeAll
  static void start() {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
    client = SetpointClient.builder().address("127.0.0.1:" + agent.port()).deadline(Duration.ofSeconds(10)).build();
  }

  @AfterAll
  static void stop() {
    client.close();
    agent.close();
  }

  private static ID artistId(String namespace, String name) {
    return Ids.of(DemoTypes.ARTIST, Tenancies.of("default", namespace), name);
  }

  private static Resource artist(String namespace, String name, String artistName) {
    return Resource.newBuilder()
        .setId(artistId(namespace, name))
        .setData(Any.pack(Artist.newBuilder().setName(artistName).build()))
        .build();
  }

  private static Artist data(Resource resource) throws InvalidProtocolBufferException {
    return resource.getData().unpack(Artist.class);
  }

  @Test
  void writeCreatesAndReadReturnsTheStoredResourceWithTheMutateHookApplied() throws Exception {
    Resource created = client.write(artist("crud", "miles", "Miles Davis"));

    assertThat(created.getId().getUid()).hasSize(26);
    assertThat(created.getVersion()).isNotEmpty();
    assertThat(data(created).getGenre()).isEqualTo(Genre.GENRE_DISCO);
    assertThat(client.read(artistId("crud", "miles"))).isEqualTo(created);
    assertThat(client.readConsistent(artistId("crud", "miles"))).isEqualTo(created);
  }

  @Test
  void readOfAnAbsentResourceIsNotFoundWithTheServerMessage() {
    assertThatThrownBy(() -> client.read(artistId("crud", "nobody")))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.NOT_FOUND);
          assertThat(e.description()).contains("nobody");
          assertThat(e.getMessage()).startsWith("NOT_FOUND: ");
          assertThat(e.violations()).isEmpty();
        });
  }

  @Test
  void invalidDataIsInvalidArgumentWithTheServersFieldViolations() {
    assertThatThrownBy(() -> client.write(artist("crud", "nameless", "")))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
          assertThat(e.violations())
              .singleElement()
              .satisfies(v -> {
                assertThat(v.field()).isEqualTo("resource.data.name");
                assertThat(v.description()).contains("required");
              });
          assertThat(e.description()).contains("resource.data.name");
        });
  }

  @Test
  void failuresOfBlockingCallsCarryTheCallersStackTrace() {
    assertThatThrownBy(() -> client.read(artistId("crud", "nobody")))
        .satisfies(e -> assertThat(e.getStackTrace())
            .anySatisfy(frame -> assertThat(frame.getMethodName())
                .isEqualTo("failuresOfBlockingCallsCarryTheCallersStackTrace")));
  }

  @Test
  void casWriteWithAStaleVersionIsAborted() {
    Resource created = client.write(artist("cas", "miles", "Miles"));
    client.write(artist("cas", "miles", "Miles Davis"));

    assertThatThrownBy(() -> client.write(created.toBuilder()
            .setData(Any.pack(Artist.newBuilder().setName("Stale").build())).build()))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.ABORTED));
  }

  @Test
  void createStoresAFreeNameAndRefusesATakenOneWithAlreadyExistsBlockingAndAsync() throws Exception {
    Resource created = client.create(artist("create", "miles", "Miles"));
    assertThat(data(created).getName()).isEqualTo("Miles");

    assertThatThrownBy(() -> client.create(artist("create", "miles", "Someone else")))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.ALREADY_EXISTS);
          assertThat(e.description()).contains("miles already exists");
        });
    assertThatThrownBy(() -> client.async().create(artist("create", "miles", "Async")).get())
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(SetpointException.class,
            e -> assertThat(e.code()).isEqualTo(Code.ALREADY_EXISTS));
    assertThat(client.readConsistent(created.getId())).isEqualTo(created);

    Resource asyncCreated = client.async().create(artist("create", "coltrane", "John")).get();
    assertThat(client.readConsistent(asyncCreated.getId())).isEqualTo(asyncCreated);
  }

  @Test
  void writeStatusStoresTheEntryWithoutChangingTheGeneration() {
    Resource created = client.write(artist("status", "miles", "Miles"));
    Status status = Status.newBuilder()
        .setObservedGeneration(created.getGeneration())
        .addConditions(Condition.newBuilder().setType("Accepted").setState(Condition.State.STATE_TRUE))
        .build();

    Resource updated = client.writeStatus(created.getId(), "demo.artist", status);

    assertThat(updated.getGeneration()).isEqualTo(created.getGeneration());
    assertThat(updated.getStatusMap().get("demo.artist").getConditions(0).getType()).isEqualTo("Accepted");
    assertThat(updated.getStatusMap().get("demo.artist").hasUpdatedAt()).isTrue();
    assertThatThrownBy(() -> client.writeStatus(created.getId(), "demo.artist", status, created.getVersion()))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.ABORTED));
  }

  @Test
  void listReturnsOnePageAndListAllFollowsEveryPage() {
    for (String name : List.of("a1", "a2", "a3", "a4", "a5")) {
      client.write(artist("paging", name, name));
    }
    ListRequest request = ListRequest.newBuilder()
        .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "paging")).setPageSize(2).build();

    ListResponse first = client.list(request);
    List<Resource> all = client.listAll(request);

    assertThat(first.getResourcesList()).hasSize(2);
    assertThat(first.getNextPageToken()).isNotEmpty();
    assertThat(all).extracting(r -> r.getId().getName()).containsExactlyInAnyOrder("a1", "a2", "a3", "a4", "a5");
  }

  @Test
  void listAllWithWildcardsCoversEveryNamespace() {
    client.write(artist("wild-one", "same", "One"));
    client.write(artist("wild-two", "same", "Two"));

    List<Resource> everywhere = client.listAll(DemoTypes.ARTIST, Tenancies.of("*", "*"));
    List<Resource> one = client.listAll(DemoTypes.ARTIST, Tenancies.of("default", "wild-one"));

    assertThat(everywhere).extracting(r -> r.getId().getTenancy().getNamespace())
        .contains("wild-one", "wild-two");
    assertThat(one).extracting(r -> r.getId().getName()).containsExactly("same");
  }

  @Test
  void listByOwnerFindsTheOwnedResources() {
    Resource owner = client.write(artist("owned", "miles", "Miles"));
    Resource album = client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ALBUM, Tenancies.of("default", "owned"), "kind-of-blue"))
        .setOwner(owner.getId())
        .setData(Any.pack(Album.newBuilder().setName("Kind of Blue").setYearOfRelease(1959).build()))
        .build());

    assertThat(client.listByOwner(owner.getId())).containsExactly(album);
  }

  @Test
  void deleteRemovesTheResourceIsIdempotentAndHonoursTheVersion() {
    Resource created = client.write(artist("delete", "miles", "Miles"));
    client.write(artist("delete", "miles", "Miles Davis"));

    assertThatThrownBy(() -> client.delete(created.getId(), created.getVersion()))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.ABORTED));
    client.delete(artistId("delete", "miles"));
    client.delete(artistId("delete", "miles"));
    assertThatThrownBy(() -> client.read(artistId("delete", "miles")))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.NOT_FOUND));
  }

  @Test
  void mutateAndValidateReturnsTheAdmittedResourceAndStoresNothing() throws Exception {
    Resource admitted = client.mutateAndValidate(artist("dry-run", "miles", "Miles"));

    assertThat(data(admitted).getGenre()).isEqualTo(Genre.GENRE_DISCO);
    assertThatThrownBy(() -> client.read(artistId("dry-run", "miles")))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.NOT_FOUND));
  }

  @Test
  void typesListsTheDemoTypesWithTheirDescriptors() {
    ListTypesResponse types = client.types();

    assertThat(types.getTypesList()).extracting(TypeInfo::getType)
        .contains(DemoTypes.ARTIST, DemoTypes.ALBUM, DemoTypes.RECORD_LABEL, DemoTypes.EXECUTIVE);
    assertThat(types.getTypesList()).filteredOn(t -> t.getType().equals(DemoTypes.ARTIST))
        .singleElement().satisfies(t -> {
          assertThat(t.getScope()).isEqualTo(Scope.SCOPE_NAMESPACE);
          assertThat(t.getDataMessage()).isEqualTo("setpoint.demo.v2.Artist");
        });
    assertThat(types.getDescriptors().getFileList()).extracting(f -> f.getName())
        .contains("setpoint/demo/v2/music.proto");
  }

  @Test
  void watchDeliversTheSnapshotThenChangesAndCloseEndsItFromAnotherThread() throws Exception {
    client.write(artist("watch", "before", "Before"));
    WatchListRequest request = WatchListRequest.newBuilder()
        .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "watch")).build();
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try (Watch watch = client.watch(request)) {
      WatchEvent snapshot = watch.next();
      WatchEvent end = watch.next();
      client.write(artist("watch", "after", "After"));
      WatchEvent change = watch.next();

      assertThat(snapshot.getUpsert().getResource().getId().getName()).isEqualTo("before");
      assertThat(end.hasEndOfSnapshot()).isTrue();
      assertThat(change.getUpsert().getResource().getId().getName()).isEqualTo("after");
      assertThat(change.getRevision()).isGreaterThan(snapshot.getRevision());

      Future<Boolean> blocked = reader.submit(watch::hasNext);
      watch.close();
      assertThat(blocked.get(10, TimeUnit.SECONDS)).isFalse();
      assertThat(watch.hasNext()).isFalse();
    } finally {
      reader.shutdownNow();
    }
  }

  @Test
  void interruptingAThreadBlockedOnAWatchCancelsIt() throws Exception {
    WatchListRequest request = WatchListRequest.newBuilder()
        .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "interrupt")).build();
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    CompletableFuture<Boolean> interruptFlag = new CompletableFuture<>();
    CompletableFuture<Void> sawEndOfSnapshot = new CompletableFuture<>();
    Thread thread = Thread.ofPlatform().start(() -> {
      try (Watch watch = client.watch(request)) {
        if (watch.next().hasEndOfSnapshot()) {
          sawEndOfSnapshot.complete(null);
        }
        watch.hasNext();
        failure.complete(null);
      } catch (RuntimeException e) {
        failure.complete(e);
      }
      interruptFlag.complete(Thread.currentThread().isInterrupted());
    });
    sawEndOfSnapshot.get(10, TimeUnit.SECONDS);
    thread.interrupt();

    assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(SetpointException.class,
        e -> assertThat(e.code()).isEqualTo(Code.CANCELLED));
    assertThat(interruptFlag.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void asyncCallsCompleteWithTheResultOrASetpointException() throws Exception {
    AsyncSetpointClient async = client.async();

    Resource written = async.write(artist("async", "miles", "Miles")).get(10, TimeUnit.SECONDS);
    Resource read = async.read(artistId("async", "miles")).get(10, TimeUnit.SECONDS);
    List<Resource> listed = async.listAll(DemoTypes.ARTIST, Tenancies.of("default", "async")).get(10, TimeUnit.SECONDS);
    CompletableFuture<Resource> missing = async.read(artistId("async", "nobody"));

    assertThat(read).isEqualTo(written);
    assertThat(listed).containsExactly(written);
    assertThatThrownBy(() -> missing.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.NOT_FOUND));
  }

  @Test
  void asyncWatchDeliversEventsUntilItsFutureIsCancelled() {
    WatchListRequest request = WatchListRequest.newBuilder()
        .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "async-watch")).build();
    List<WatchEvent> events = new CopyOnWriteArrayList<>();

    CompletableFuture<Void> watching = client.async().watch(request, events::add);
    await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 1 && events.get(0).hasEndOfSnapshot());
    client.write(artist("async-watch", "first", "First"));
    await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 2);
    assertThat(watching.cancel(true)).isTrue();
    client.write(artist("async-watch", "second", "Second"));

    assertThat(events.get(1).getUpsert().getResource().getId().getName()).isEqualTo("first");
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> events.size() == 2);
  }

  @Test
  void anAsyncWatchWhoseListenerThrowsEndsWithThatException() {
    WatchListRequest request = WatchListRequest.newBuilder()
        .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "listener-fails")).build();
    IllegalStateException boom = new IllegalStateException("boom");

    CompletableFuture<Void> watching = client.async().watch(request, event -> {
      throw boom;
    });

    assertThatThrownBy(() -> watching.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause().isSameAs(boom);
  }

  @Test
  void anUnreachableServerIsUnavailableAndTheMessageNamesTheAddress() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (SetpointClient down = SetpointClient.connect("127.0.0.1:" + port)) {
      assertThatThrownBy(() -> down.read(artistId("default", "miles")))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.UNAVAILABLE);
            assertThat(e.description()).startsWith("cannot reach the Setpoint server at 127.0.0.1:" + port);
          });
    }
  }

  @Test
  void malformedAddressesAreRejectedUpFront() {
    for (String address : List.of("localhost", "localhost:", ":8500", "localhost:http", "localhost:70000")) {
      assertThatThrownBy(() -> SetpointClient.connect(address))
          .as(address)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("host:port");
    }
    assertThat(HostPort.parse("[::1]:8500")).isEqualTo(new HostPort("::1", 8500));
  }

  @Test
  void defaultTenancyIsFilledInByTheServer() {
    Resource created = client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, "defaulted"))
        .setData(Any.pack(Artist.newBuilder().setName("Defaulted").build()))
        .build());

    assertThat(created.getId().getTenancy()).isEqualTo(Tenancy.newBuilder().setPartition("default").setNamespace("default").build());
  }
}
