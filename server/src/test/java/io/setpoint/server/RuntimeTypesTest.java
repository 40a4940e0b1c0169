package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import io.setpoint.server.testing.garden.Bed;
import io.setpoint.server.testing.garden.Garden;
import io.setpoint.server.testing.garden.Leaf;
import io.setpoint.server.testing.garden.Plant;
import io.setpoint.storage.memory.MemoryBackend;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Types defined at runtime through {@code core.v1.TypeDefinition}, on a real agent, over gRPC and HTTP. */
class RuntimeTypesTest {
  static final Type PLANT = Types.of("garden", "v1", "Plant");
  static final Type BED = Types.of("garden", "v1", "Bed");
  static final Tenancy DEFAULT = Tenancies.of("default", "default");

  private final MemoryBackend backend = new MemoryBackend();
  private Agent agent;
  private SetpointClient client;

  @BeforeEach
  void start() {
    agent = Agent.builder().port(0).acls(false).backend(backend).start();
    client = SetpointClient.connect("127.0.0.1:" + agent.port());
  }

  @AfterEach
  void stop() {
    client.close();
    agent.close();
  }

  /** The garden file and everything it imports, dependencies first, as protoc --include_imports writes. */
  static FileDescriptorSet gardenFiles() {
    Set<FileDescriptor> files = new LinkedHashSet<>();
    addWithDependencies(Garden.getDescriptor(), files);
    FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
    files.forEach(f -> set.addFile(f.toProto()));
    return set.build();
  }

  private static void addWithDependencies(FileDescriptor file, Set<FileDescriptor> out) {
    file.getDependencies().forEach(d -> addWithDependencies(d, out));
    out.add(file);
  }

  static Resource definition(String name, String message, FileDescriptorSet files, boolean force) {
    return Resource.newBuilder()
        .setId(Ids.of(TypeDefinitions.TYPE, name))
        .setData(Any.pack(TypeDefinition.newBuilder().setMessage(message).setFiles(files).setForce(force).build()))
        .build();
  }

  static Resource plantDefinition() {
    return definition("garden-v1-plant", "acme.garden.v1.Plant", gardenFiles(), false);
  }

  static Resource plant(String name, Plant data) {
    return Resource.newBuilder().setId(Ids.of(PLANT, DEFAULT, name)).setData(Any.pack(data)).build();
  }

  private void applyAndAwait(Resource definition, Type type) {
    client.write(definition);
    await().atMost(Duration.ofSeconds(10)).until(() -> client.types().getTypesList().stream()
        .anyMatch(t -> t.getType().equals(type)));
  }

  @Test
  void aTypeAppliedAtRuntimeIsServedWithItsRulesOverGrpcAndHttp() throws Exception {
    Resource stored = client.write(plantDefinition());
    // The server keeps only the user's file: its own protos are resolved by name.
    TypeDefinition kept = stored.getData().unpack(TypeDefinition.class);
    assertThat(kept.getFiles().getFileList()).extracting(FileDescriptorProto::getName)
        .containsExactly("acme/garden/v1/garden.proto");
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.registry().resolve(PLANT).isPresent());

    Plant fern = Plant.newBuilder().setSpecies("fern").setHeightCm(40)
        .addLeaves(Leaf.newBuilder().setColor("green").setLengthMm(12)).build();
    try (Watch watch = client.watch(WatchListRequest.newBuilder().setType(PLANT)
        .setTenancy(Tenancies.wildcard(io.setpoint.api.v1.Scope.SCOPE_NAMESPACE)).build())) {
      assertThat(watch.next().getEventCase()).isEqualTo(WatchEvent.EventCase.END_OF_SNAPSHOT);
      client.write(plant("fern", fern));
      WatchEvent upsert = watch.next();
      assertThat(upsert.getUpsert().getResource().getData().unpack(Plant.class)).isEqualTo(fern);
    }
    assertThat(client.listAll(PLANT, DEFAULT)).hasSize(1);

    // A rule broken deep in the data: the field path and the rule, and nothing stored.
    Plant blue = fern.toBuilder().addLeaves(Leaf.newBuilder().setColor("blue").setLengthMm(3)).build();
    assertThatThrownBy(() -> client.write(plant("bluebell", blue)))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.violations()).anySatisfy(v -> {
            assertThat(v.field()).isEqualTo("resource.data.leaves[1].color");
            assertThat(v.description()).contains("string.in");
          });
        });
    assertThat(client.findConsistent(Ids.of(PLANT, DEFAULT, "bluebell"))).isEmpty();

    // The HTTP gateway serves the new type at once: documents, routes, JSON with the same rules.
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + agent.port();
    HttpResponse<String> types = http.send(HttpRequest.newBuilder(URI.create(base + "/api/types")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(types.body()).contains("garden.v1.Plant").contains("heightCm");
    assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/api/openapi.json")).build(),
        HttpResponse.BodyHandlers.ofString()).body()).contains("/api/garden/v1/Plant");
    HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/api/garden/v1/Plant/ivy"))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString("{\"data\":{\"species\":\"ivy\",\"heightCm\":7}}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    assertThat(created.body()).contains("\"species\":\"ivy\"");
    HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "/api/garden/v1/Plant/tall"))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString("{\"data\":{\"species\":\"x\",\"heightCm\":20000}}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body()).contains("resource.data.height_cm").contains("int32.gte_lte");
    assertThat(client.findConsistent(Ids.of(PLANT, DEFAULT, "tall"))).isEmpty();
  }

  @Test
  void aCompiledTypeWhoseMessageDeclaresRulesHasThemChecked() {
    try (Agent compiled = Agent.builder().port(0).acls(false)
            .types(r -> r.register(io.setpoint.resource.Registration.of(PLANT, Plant.class)
                .validate(io.setpoint.resource.Hooks.decodeAndValidate(Plant.class,
                    (p, v) -> { if (p.data().getSpecies().equals("weed")) v.add("species", "no-weeds", "is a weed"); }))
                .build()))
            .start();
        SetpointClient direct = SetpointClient.connect("127.0.0.1:" + compiled.port())) {
      direct.write(plant("fern", Plant.newBuilder().setSpecies("fern").build()));
      assertThatThrownBy(() -> direct.write(plant("tall", Plant.newBuilder().setSpecies("fern").setHeightCm(-1).build())))
          .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.violations())
              .anySatisfy(v -> assertThat(v.field()).isEqualTo("resource.data.height_cm")));
      // The type's own hook runs too, after the declared rules.
      assertThatThrownBy(() -> direct.write(plant("weed", Plant.newBuilder().setSpecies("weed").build())))
          .hasMessageContaining("resource.data.species: is a weed");
    }
  }

  @Test
  void aCelRuleOnTheMessageIsChecked() {
    applyAndAwait(definition("garden-v1-bed", "acme.garden.v1.Bed", gardenFiles(), false), BED);
    ID id = Ids.of(BED, Tenancies.partition("default"), "north");
    client.write(Resource.newBuilder().setId(id)
        .setData(Any.pack(Bed.newBuilder().setWidthM(1).setLengthM(4).build())).build());
    assertThatThrownBy(() -> client.write(Resource.newBuilder().setId(Ids.of(BED, Tenancies.partition("default"), "wide"))
        .setData(Any.pack(Bed.newBuilder().setWidthM(5).setLengthM(4).build())).build()))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("bed.width_under_length").contains("width_m must not exceed length_m");
        });
  }

  @Test
  void aTypeInUseCannotBeDeletedAndIsGoneOnceDeleted() {
    applyAndAwait(plantDefinition(), PLANT);
    client.write(plant("fern", Plant.newBuilder().setSpecies("fern").build()));
    client.write(plant("moss", Plant.newBuilder().setSpecies("moss").build()));
    ID definition = Ids.of(TypeDefinitions.TYPE, "garden-v1-plant");
    assertThatThrownBy(() -> client.delete(definition))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getMessage()).contains("garden.v1.Plant still has 2 resources");
        });
    assertThat(client.findConsistent(definition)).isPresent();
    client.delete(Ids.of(PLANT, DEFAULT, "fern"));
    client.delete(Ids.of(PLANT, DEFAULT, "moss"));
    client.delete(definition);
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.registry().resolve(PLANT).isEmpty());
    assertThatThrownBy(() -> client.write(plant("fern", Plant.newBuilder().setSpecies("fern").build())))
        .isInstanceOfSatisfying(SetpointException.class,
            e -> assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }

  @Test
  void compatibleChangesAreAcceptedAndBreakingOnesListed() {
    applyAndAwait(plantDefinition(), PLANT);
    client.write(plant("fern", Plant.newBuilder().setSpecies("fern").setHeightCm(3).build()));

    // A new field: compatible.
    FileDescriptorSet added = withPlant(gardenFiles(), plant -> plant.addField(FieldDescriptorProto.newBuilder()
        .setName("origin").setNumber(9).setType(FieldDescriptorProto.Type.TYPE_STRING)
        .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL)));
    client.write(definition("garden-v1-plant", "acme.garden.v1.Plant", added, false));

    // height_cm (set in stored data) retyped and notes (unset) removed: only the first breaks.
    FileDescriptorSet broken = withPlant(gardenFiles(), plant -> {
      plant.getFieldBuilderList().stream().filter(f -> f.getName().equals("height_cm"))
          .forEach(f -> f.setType(FieldDescriptorProto.Type.TYPE_STRING).clearOptions());
      plant.removeField(3);
    });
    for (boolean force : new boolean[] {false, true}) {
      assertThatThrownBy(() -> client.write(definition("garden-v1-plant", "acme.garden.v1.Plant", broken, force)))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(e.getMessage())
                .contains("field 2 (height_cm) changes from int32 to string, and 1 stored resources set it")
                .doesNotContain("notes");
          });
    }
    // A retyped field no stored resource sets: refused, unless forced.
    FileDescriptorSet retypedUnset = withPlant(gardenFiles(), plant -> plant.getFieldBuilderList().stream()
        .filter(f -> f.getName().equals("species"))
        .forEach(f -> f.setType(FieldDescriptorProto.Type.TYPE_BYTES).clearOptions()));
    client.write(plant("fern", Plant.newBuilder().setHeightCm(3).setSpecies("fern").build()));
    client.delete(Ids.of(PLANT, DEFAULT, "fern"));
    client.write(plant("sprout", Plant.newBuilder().setSpecies("x").build()));
    assertThatThrownBy(() -> client.write(definition("garden-v1-plant", "acme.garden.v1.Plant", retypedUnset, true)))
        .hasMessageContaining("field 1 (species) changes from string to bytes, and 1 stored resources set it");
    client.delete(Ids.of(PLANT, DEFAULT, "sprout"));
    assertThatThrownBy(() -> client.write(definition("garden-v1-plant", "acme.garden.v1.Plant", retypedUnset, false)))
        .hasMessageContaining("no stored resource sets it; --force allows it");
    Resource forced = client.write(definition("garden-v1-plant", "acme.garden.v1.Plant", retypedUnset, true));
    assertThat(forced.getData().getValue()).isNotEmpty();
    assertThat(uncheckedUnpack(forced).getForce()).as("force applies to one write and is not stored").isFalse();
  }

  private static TypeDefinition uncheckedUnpack(Resource resource) {
    try {
      return resource.getData().unpack(TypeDefinition.class);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  /** {@code files} with the Plant message of the garden file edited. */
  static FileDescriptorSet withPlant(
      FileDescriptorSet files, java.util.function.Consumer<com.google.protobuf.DescriptorProtos.DescriptorProto.Builder> edit) {
    FileDescriptorSet.Builder out = files.toBuilder();
    for (FileDescriptorProto.Builder file : out.getFileBuilderList()) {
      if (file.getName().equals("acme/garden/v1/garden.proto")) {
        file.getMessageTypeBuilderList().stream().filter(m -> m.getName().equals("Plant")).forEach(edit);
      }
    }
    return out.build();
  }
}
