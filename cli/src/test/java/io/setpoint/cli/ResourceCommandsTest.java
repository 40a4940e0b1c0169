package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import io.setpoint.server.Agent;
import io.setpoint.server.ServiceLimits;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.memory.MemoryBackend;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resource commands, run in-process against a real agent with the demo types. Each test works
 * in its own namespace.
 */
@Timeout(60)
class ResourceCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The namespace and consistency of every list the store served, oldest first. */
  private static final Queue<String> LISTINGS = new ConcurrentLinkedQueue<>();

  private static Agent agent;
  private static SetpointClient client;
  private static String address;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    // Pages of two resources, so that list has to follow page tokens.
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).limits(new ServiceLimits(1 << 20, 2, 100))
        .backend(new ForwardingBackend(new MemoryBackend()) {
          @Override
          public Page list(Consistency consistency, Type type, Tenancy tenancy, String prefix, int limit, String token) {
            LISTINGS.add(tenancy.getNamespace() + " " + consistency);
            return super.list(consistency, type, tenancy, prefix, limit, token);
          }
        })
        .start();
    address = "127.0.0.1:" + agent.port();
    client = SetpointClient.connect(address);
  }

  @AfterAll
  static void stop() {
    client.close();
    agent.close();
  }

  /** {@code setpoint resource ARGS -address <the agent>}. */
  private static CliRun resource(String... args) {
    return resourceWithStdin("", args);
  }

  private static CliRun resourceWithStdin(String stdin, String... args) {
    String[] full = Stream.of(Stream.of("resource"), Stream.of(args), Stream.of("-address", address))
        .flatMap(s -> s).toArray(String[]::new);
    return CliRun.runWithStdin(stdin, full);
  }

  private static ID artistId(String namespace, String name) {
    return Ids.of(DemoTypes.ARTIST, Tenancies.of("default", namespace), name);
  }

  private static Resource writeArtist(String namespace, String name) {
    return client.write(Resource.newBuilder()
        .setId(artistId(namespace, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build()))
        .build());
  }

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private static String artistJson(String namespace, String name, String artistName) {
    return """
        {"id": {"type": "demo.v2.Artist", "name": "%s", "tenancy": {"namespace": "%s"}},
         "data": {"name": "%s", "genre": "GENRE_JAZZ"}}
        """.formatted(name, namespace, artistName);
  }

  @Test
  void applyOfAJsonFileCreatesThenReportsUnchangedThenUpdated() throws Exception {
    Path first = file("miles.json", artistJson("apply-json", "miles", "Miles"));
    Path second = file("miles2.json", artistJson("apply-json", "miles", "Miles Davis"));

    CliRun created = resource("apply", "-f", first.toString());
    CliRun unchanged = resource("apply", "-f", first.toString());
    CliRun updated = resource("apply", "-f", second.toString());

    Resource stored = client.read(artistId("apply-json", "miles"));
    assertThat(created.code()).as(created.toString()).isZero();
    assertThat(created.out()).isEqualTo("created demo.v2.Artist/default/apply-json/miles (version "
        + (Long.parseLong(stored.getVersion()) - 1) + ")\n");
    assertThat(unchanged.out()).startsWith("unchanged demo.v2.Artist/default/apply-json/miles (version ");
    assertThat(updated.out()).isEqualTo("updated demo.v2.Artist/default/apply-json/miles (version " + stored.getVersion() + ")\n");
    assertThat(stored.getData().unpack(Artist.class).getName()).isEqualTo("Miles Davis");
    assertThat(updated.code()).isZero();
  }

  @Test
  void createMakesAFreeNameAndOnATakenOneExitsThreeChangingNothing() throws Exception {
    Path first = file("create.json", artistJson("create", "miles", "Miles"));
    Path other = file("create2.yaml", """
        id: {type: demo.v2.Artist, name: coltrane, tenancy: {namespace: create}}
        data: {name: John}
        ---
        id: {type: demo.v2.Artist, name: miles, tenancy: {namespace: create}}
        data: {name: Someone else}
        """);

    CliRun created = resource("create", "-f", first.toString());
    Resource stored = client.read(artistId("create", "miles"));
    CliRun conflict = resource("create", "-f", other.toString());

    assertThat(created.code()).as(created.toString()).isZero();
    assertThat(created.out()).isEqualTo("created demo.v2.Artist/default/create/miles (version " + stored.getVersion() + ")\n");
    assertThat(conflict.code()).as(conflict.toString()).isEqualTo(3);
    assertThat(conflict.out()).startsWith("created demo.v2.Artist/default/create/coltrane (version ");
    assertThat(conflict.err()).startsWith("Error: demo.v2.Artist/default/create/miles already exists")
        .contains("setpoint resource apply");
    assertThat(client.read(artistId("create", "miles"))).isEqualTo(stored);
  }

  @Test
  void applyReadsSeveralYamlDocumentsFromStdin() throws Exception {
    String yaml = """
        id:
          type: demo.v2.Artist
          name: ella
          tenancy: {namespace: apply-yaml}
        metadata:
          team: vocals
        data:
          name: Ella Fitzgerald
          groupMembers:
            ella: voice
        ---
        id: {type: demo.v1.RecordLabel, name: verve, tenancy: {partition: apply-yaml}}
        data: {name: Verve, description: "jazz: mostly"}
        """;

    CliRun run = resourceWithStdin(yaml, "apply", "-f", "-");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out().lines()).satisfiesExactly(
        line -> assertThat(line).startsWith("created demo.v2.Artist/default/apply-yaml/ella (version "),
        line -> assertThat(line).startsWith("created demo.v1.RecordLabel/apply-yaml/verve (version "));
    Resource ella = client.read(artistId("apply-yaml", "ella"));
    assertThat(ella.getMetadataMap()).containsEntry("team", "vocals");
    assertThat(ella.getData().unpack(Artist.class).getGroupMembersMap()).containsEntry("ella", "voice");
    assertThat(ella.getData().unpack(Artist.class).getGenre()).isEqualTo(Genre.GENRE_DISCO);
  }

  @Test
  void applyChecksEveryDocumentBeforeWritingAny() throws Exception {
    Path file = file("two.yaml", """
        id: {type: demo.v2.Artist, name: first, tenancy: {namespace: apply-check}}
        data: {name: First}
        ---
        id: {type: demo.v2.Artist, name: second, tenancy: {namespace: apply-check}}
        data: {nmae: Typo}
        """);

    CliRun run = resource("apply", "-f", file.toString());

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).startsWith("Error: " + file + ", document 2: invalid demo.v2.Artist document")
        .contains("nmae");
    assertThat(run.out()).isEmpty();
    assertThat(client.listAll(DemoTypes.ARTIST, Tenancies.of("default", "apply-check"))).isEmpty();
  }

  @Test
  void applyOfInvalidDataPrintsTheServerMessageWithTheFieldAndExitsOne() {
    CliRun run = resourceWithStdin(
        "{\"id\": {\"type\": \"demo.v2.Album\", \"name\": \"nameless\"}, \"data\": {\"tracks\": [{\"name\": \"ok\"}, {}]}}",
        "apply", "-f", "-");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("Error: resource.data.name: must not be empty (rule: required); "
        + "resource.data.tracks[1].name: must not be empty (rule: required)\n");
  }

  @Test
  void applyDryRunAdmitsOnTheServerAndStoresNothing() throws Exception {
    Path good = file("dry.yaml", """
        id: {type: demo.v2.Artist, name: dry, tenancy: {namespace: apply-dry}}
        data: {name: Dry}
        """);
    Path bad = file("dry-bad.yaml", """
        id: {type: demo.v2.Album, name: nameless, tenancy: {namespace: apply-dry}}
        data: {tracks: [{name: ok}, {}]}
        """);

    CliRun wouldCreate = resource("apply", "--dry-run", "-f", good.toString());
    CliRun refused = resource("apply", "--dry-run", "-f", bad.toString());
    CliRun created = resource("apply", "-f", good.toString());
    CliRun wouldLeave = resource("apply", "-dry-run", "-f", good.toString());

    assertThat(wouldCreate.code()).as(wouldCreate.toString()).isZero();
    assertThat(wouldCreate.out()).isEqualTo("would create demo.v2.Artist/default/apply-dry/dry (dry run: nothing stored)\n");
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).isEqualTo("Error: resource.data.name: must not be empty (rule: required); "
        + "resource.data.tracks[1].name: must not be empty (rule: required)\n");
    assertThat(created.out()).startsWith("created demo.v2.Artist/default/apply-dry/dry");
    assertThat(wouldLeave.out()).isEqualTo("would leave unchanged demo.v2.Artist/default/apply-dry/dry (dry run: nothing stored)\n");
    // Only the real apply stored anything: one artist, at the version it created.
    assertThat(client.listAll(DemoTypes.ARTIST, Tenancies.of("default", "apply-dry"))).singleElement()
        .satisfies(r -> assertThat(created.out()).contains("(version " + r.getVersion() + ")"));
    assertThat(client.listAll(DemoTypes.ALBUM, Tenancies.of("default", "apply-dry"))).isEmpty();
  }

  @Test
  void applyOfAMissingFileOrInvalidYamlExitsOneWithTheReason() throws Exception {
    CliRun missing = resource("apply", "-f", dir.resolve("nope.yaml").toString());
    CliRun invalid = resource("apply", "-f", file("bad.yaml", "id: [unclosed\n").toString());

    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("Error: cannot read " + dir.resolve("nope.yaml") + ": no such file\n");
    assertThat(invalid.code()).isEqualTo(1);
    assertThat(invalid.err()).startsWith("Error: " + dir.resolve("bad.yaml") + ": not valid YAML: ").contains("line ");
  }

  @Test
  void readPrintsATableJsonOrYaml() throws Exception {
    Resource stored = writeArtist("read", "miles");

    CliRun table = resource("read", "demo.v2.Artist", "miles", "-namespace", "read");
    CliRun json = resource("read", "demo.v2.Artist", "miles", "-namespace", "read", "-o", "json", "-consistent");
    CliRun yaml = resource("read", "demo.v2.Artist", "miles", "-namespace", "read", "-o", "yaml");

    assertThat(table.code()).as(table.toString()).isZero();
    assertThat(table.out().lines()).satisfiesExactly(
        header -> assertThat(header.split(" +")).containsExactly("NAME", "TENANCY", "VERSION", "GENERATION", "AGE"),
        row -> assertThat(row.split(" +")).startsWith("miles", "default/read", stored.getVersion(), stored.getGeneration())
            .hasSize(5));
    JsonNode doc = JSON.readTree(json.out());
    assertThat(doc.at("/id/type").asText()).isEqualTo("demo.v2.Artist");
    assertThat(doc.at("/id/uid").asText()).isEqualTo(stored.getId().getUid());
    assertThat(doc.at("/version").asText()).isEqualTo(stored.getVersion());
    assertThat(doc.at("/data/genre").asText()).isEqualTo("GENRE_DISCO");
    assertThat(doc.at("/data/@type").isMissingNode()).isTrue();
    assertThat(yaml.out()).startsWith("---\nid:\n  type: demo.v2.Artist\n  name: miles\n")
        .contains("version: \"" + stored.getVersion() + "\"\n")
        .contains("  genre: GENRE_DISCO\n");
  }

  @Test
  void readAcceptsAKindForTheTypeAndShowsConditions() {
    Resource stored = writeArtist("conditions", "miles");
    client.writeStatus(stored.getId(), "demo.artist", Status.newBuilder()
        .setObservedGeneration(stored.getGeneration())
        .addConditions(Condition.newBuilder().setType("Accepted").setState(Condition.State.STATE_TRUE))
        .addConditions(Condition.newBuilder().setType("Released").setState(Condition.State.STATE_FALSE))
        .build());

    CliRun run = resource("read", "artist", "miles", "-namespace", "conditions");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out().lines().findFirst().orElseThrow()).endsWith("AGE   CONDITIONS");
    assertThat(run.out().lines().skip(1).findFirst().orElseThrow()).endsWith("Accepted=True, Released=False");
  }

  @Test
  void listPagesThroughEverythingWithWildcardsAndPrefixes() {
    writeArtist("list-a", "alpha");
    writeArtist("list-a", "beta");
    writeArtist("list-a", "gamma");
    writeArtist("list-b", "alpine");

    CliRun oneNamespace = resource("list", "demo.v2.Artist", "-namespace", "list-a");
    CliRun everywhere = resource("list", "demo.v2.Artist", "-partition", "*", "-namespace", "*");
    CliRun prefixed = resource("list", "demo.v2.Artist", "-namespace", "*", "-prefix", "al");
    CliRun none = resource("list", "demo.v2.Artist", "-namespace", "list-empty");

    assertThat(oneNamespace.code()).as(oneNamespace.toString()).isZero();
    assertThat(names(oneNamespace)).containsExactly("alpha", "beta", "gamma");
    assertThat(rows(everywhere)).contains("alpha default/list-a", "beta default/list-a", "alpine default/list-b");
    assertThat(rows(prefixed)).contains("alpha default/list-a", "alpine default/list-b")
        .noneMatch(row -> row.startsWith("beta"));
    assertThat(none.code()).isZero();
    assertThat(none.out()).isEmpty();
    assertThat(none.err()).isEqualTo("No demo.v2.Artist resources found.\n");
  }

  @Test
  void listConsistentAsksTheStoreForAStrongReadOnEveryPage() {
    writeArtist("list-strong", "one");
    writeArtist("list-strong", "two");
    writeArtist("list-strong", "three");

    CliRun strong = resource("list", "demo.v2.Artist", "-namespace", "list-strong", "-consistent");
    List<String> strongPages = listingsOf("list-strong");
    CliRun eventual = resource("list", "demo.v2.Artist", "-namespace", "list-strong");

    assertThat(strong.code()).as(strong.toString()).isZero();
    assertThat(names(strong)).containsExactly("one", "three", "two");
    // Three resources in pages of two: both pages are strong reads, and the default stays eventual.
    assertThat(strongPages).containsExactly("list-strong STRONG", "list-strong STRONG");
    assertThat(eventual.code()).as(eventual.toString()).isZero();
    assertThat(listingsOf("list-strong")).containsExactly(
        "list-strong STRONG", "list-strong STRONG", "list-strong EVENTUAL", "list-strong EVENTUAL");
  }

  private static List<String> listingsOf(String namespace) {
    return LISTINGS.stream().filter(listing -> listing.startsWith(namespace + " ")).toList();
  }

  @Test
  void listAsJsonIsAnArrayThatApplyTakesBackUnchanged() throws Exception {
    writeArtist("round-trip", "one");
    writeArtist("round-trip", "two");

    CliRun json = resource("list", "demo.v2.Artist", "-namespace", "round-trip", "-o", "json");
    CliRun yaml = resource("list", "demo.v2.Artist", "-namespace", "round-trip", "-o", "yaml");
    CliRun applyJson = resource("apply", "-f", file("list.json", json.out()).toString());
    CliRun applyYaml = resourceWithStdin(yaml.out(), "apply", "-f", "-");

    JsonNode array = JSON.readTree(json.out());
    assertThat(array.isArray()).isTrue();
    assertThat(array).extracting(n -> n.at("/id/name").asText()).containsExactly("one", "two");
    assertThat(applyJson.out().lines()).hasSize(2).allMatch(line -> line.startsWith("unchanged "));
    assertThat(applyYaml.out().lines()).hasSize(2).allMatch(line -> line.startsWith("unchanged "));
  }

  @Test
  void deleteRemovesTheResourceAndAStaleVersionIsRefused() {
    Resource first = writeArtist("delete", "miles");
    client.write(first.toBuilder().putMetadata("touched", "yes").build());

    CliRun stale = resource("delete", "demo.v2.Artist", "miles", "-namespace", "delete", "-version", first.getVersion());
    CliRun deleted = resource("delete", "demo.v2.Artist", "miles", "-namespace", "delete");
    CliRun readAfter = resource("read", "demo.v2.Artist", "miles", "-namespace", "delete");

    assertThat(stale.code()).isEqualTo(1);
    assertThat(stale.err()).startsWith("Error: ").contains("does not match");
    assertThat(deleted.code()).as(deleted.toString()).isZero();
    assertThat(deleted.out()).isEqualTo("deleted demo.v2.Artist/default/delete/miles\n");
    assertThat(readAfter.code()).isEqualTo(1);
    assertThat(readAfter.err()).isEqualTo("Error: demo.v2.Artist/default/delete/miles not found\n");
  }

  @Test
  void watchPrintsTheSnapshotThenChangesUntilInterrupted() throws Exception {
    Resource before = writeArtist("watch", "before");

    CliRun watch = CliRun.start("resource", "watch", "demo.v2.Artist", "-namespace", "watch", "-address", address);
    await().atMost(Duration.ofSeconds(20)).until(() -> watch.out().contains("END_OF_SNAPSHOT"));
    Resource after = writeArtist("watch", "after");
    client.delete(before.getId());
    await().atMost(Duration.ofSeconds(20)).until(() -> watch.out().contains("DELETE"));
    watch.interruptAndJoin();

    assertThat(watch.code()).as(watch.toString()).isZero();
    assertThat(watch.out().lines().map(line -> String.join(" ", line.split(" +")))).satisfiesExactly(
        line -> assertThat(line).isEqualTo("EVENT REVISION RESOURCE"),
        line -> assertThat(line).isEqualTo("UPSERT " + before.getVersion() + " demo.v2.Artist/default/watch/before"),
        line -> assertThat(line).matches("END_OF_SNAPSHOT \\d+"),
        line -> assertThat(line).isEqualTo("UPSERT " + after.getVersion() + " demo.v2.Artist/default/watch/after"),
        line -> assertThat(line).isEqualTo(
            "DELETE " + (Long.parseLong(after.getVersion()) + 1) + " demo.v2.Artist/default/watch/before"));
    assertThat(watch.err()).isEmpty();
  }

  @Test
  void watchSinceARevisionPrintsOnlyTheChangesAfterItWithoutASnapshot() throws Exception {
    Resource first = writeArtist("watch-since", "first");
    Resource second = writeArtist("watch-since", "second");

    CliRun watch = CliRun.start("resource", "watch", "demo.v2.Artist", "-namespace", "watch-since",
        "-since", first.getVersion(), "-address", address);
    await().atMost(Duration.ofSeconds(20)).until(() -> watch.out().contains("second"));
    Resource third = writeArtist("watch-since", "third");
    await().atMost(Duration.ofSeconds(20)).until(() -> watch.out().contains("third"));
    watch.interruptAndJoin();
    CliRun negative = resource("watch", "demo.v2.Artist", "-since", "-1");

    assertThat(watch.code()).as(watch.toString()).isZero();
    assertThat(watch.out().lines().map(line -> String.join(" ", line.split(" +")))).containsExactly(
        "EVENT REVISION RESOURCE",
        "UPSERT " + second.getVersion() + " demo.v2.Artist/default/watch-since/second",
        "UPSERT " + third.getVersion() + " demo.v2.Artist/default/watch-since/third");
    assertThat(negative.code()).isEqualTo(1);
    assertThat(negative.err()).contains("-since").contains("0 or more");
  }

  @Test
  void watchAsJsonPrintsOneDocumentPerLine() throws Exception {
    CliRun watch = CliRun.start("resource", "watch", "demo.v2.Artist", "-namespace", "watch-json", "-o", "json",
        "-address", address);
    await().atMost(Duration.ofSeconds(20)).until(() -> watch.out().contains("END_OF_SNAPSHOT"));
    writeArtist("watch-json", "miles");
    await().atMost(Duration.ofSeconds(20)).until(() -> watch.out().lines().count() == 2);
    watch.interruptAndJoin();

    assertThat(watch.code()).isZero();
    JsonNode end = JSON.readTree(watch.out().lines().toList().get(0));
    JsonNode upsert = JSON.readTree(watch.out().lines().toList().get(1));
    assertThat(end.get("event").asText()).isEqualTo("END_OF_SNAPSHOT");
    assertThat(upsert.get("event").asText()).isEqualTo("UPSERT");
    assertThat(upsert.at("/resource/id/name").asText()).isEqualTo("miles");
    assertThat(upsert.at("/resource/data/name").asText()).isEqualTo("miles");
  }

  @Test
  void serverErrorsPrintTheServerMessageAndExitOne() {
    CliRun unknownType = resource("read", "demo.v9.Nope", "x");
    CliRun badName = resource("read", "demo.v2.Artist", "Bad_Name");
    CliRun wildcardRead = resource("read", "demo.v2.Artist", "x", "-namespace", "*");

    assertThat(unknownType.code()).isEqualTo(1);
    assertThat(unknownType.err()).isEqualTo("Error: id.type: unknown type demo.v9.Nope (rule: registered)\n");
    assertThat(badName.code()).isEqualTo(1);
    assertThat(badName.err()).startsWith("Error: id.name: \"Bad_Name\" must be a DNS label").endsWith("(rule: dns-label)\n");
    assertThat(wildcardRead.code()).isEqualTo(1);
    assertThat(wildcardRead.err()).contains("id.tenancy.namespace").contains("only accepted by List and WatchList");
  }

  @Test
  void anUnknownKindListsTheServersTypes() {
    CliRun run = resource("list", "Nope");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("Error: unknown type Nope; the server serves "
        + "acl.v1.Bootstrap, acl.v1.Policy, acl.v1.Token, core.v1.Event, core.v1.Lease, core.v1.Tombstone, core.v1.TypeDefinition, "
        + "demo.v1.Executive, demo.v1.RecordLabel, demo.v2.Album, demo.v2.Artist\n");
  }

  @Test
  void usageErrorsExitTwo() {
    CliRun badType = resource("read", "not.a-type", "x");
    CliRun missingName = resource("read", "demo.v2.Artist");
    CliRun unknownOption = resource("list", "demo.v2.Artist", "-namespac", "x");
    CliRun badFormat = resource("list", "demo.v2.Artist", "-o", "xml");
    CliRun badAddress = CliRun.run("resource", "list", "demo.v2.Artist", "-address", "nowhere");
    CliRun noCommand = CliRun.run();

    assertThat(badType.code()).isEqualTo(2);
    assertThat(badType.err()).startsWith("Error: type \"not.a-type\" must be written group.version.Kind")
        .contains("Usage: setpoint resource read ")
        .endsWith("Run 'setpoint resource read -h' for help.\n");
    assertThat(missingName.code()).isEqualTo(2);
    assertThat(missingName.err()).startsWith("Error: Missing required parameter: 'NAME'");
    assertThat(unknownOption.code()).isEqualTo(2);
    assertThat(unknownOption.err()).startsWith("Error: Unknown options: '-namespac', 'x'")
        .contains("Possible solutions: -namespace");
    assertThat(badFormat.code()).isEqualTo(2);
    assertThat(badFormat.err()).contains("xml").contains("table, json, yaml");
    assertThat(badAddress.code()).isEqualTo(2);
    assertThat(badAddress.err()).startsWith("Error: -address: address \"nowhere\" must be host:port");
    assertThat(noCommand.code()).isEqualTo(2);
    assertThat(noCommand.err()).startsWith("Error: Missing required subcommand");
  }

  @Test
  void aServerThatIsDownIsReportedClearlyWithExitOne() throws IOException {
    int port = FreePorts.loopback();

    CliRun run = CliRun.run("resource", "list", "demo.v2.Artist", "-address", "127.0.0.1:" + port);

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("Error: cannot reach the Setpoint server at 127.0.0.1:" + port + ": ")
        .contains("Is an agent running there? Start one with 'setpoint agent -dev'");
  }

  @Test
  void theTokenOptionIsAccepted() {
    writeArtist("token", "miles");

    CliRun run = resource("read", "demo.v2.Artist", "miles", "-namespace", "token", "-token", "s3cret");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(names(run)).containsExactly("miles");
  }

  private static List<String> names(CliRun run) {
    return run.out().lines().skip(1).map(line -> line.split(" +")[0]).toList();
  }

  private static List<String> rows(CliRun run) {
    return run.out().lines().skip(1).map(line -> {
      String[] cells = line.split(" +");
      return cells[0] + " " + cells[1];
    }).toList();
  }
}
