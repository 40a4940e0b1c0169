package io.setpoint.server;

import static io.setpoint.server.RuntimeTypesTest.DEFAULT;
import static io.setpoint.server.RuntimeTypesTest.PLANT;
import static io.setpoint.server.RuntimeTypesTest.definition;
import static io.setpoint.server.RuntimeTypesTest.gardenFiles;
import static io.setpoint.server.RuntimeTypesTest.plant;
import static io.setpoint.server.RuntimeTypesTest.withPlant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.server.testing.garden.Plant;
import io.setpoint.storage.memory.MemoryBackend;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Definitions the server must refuse, each with a clear error, leaving the stored definitions and
 * the served types as they were. One agent serves them all, with garden.v1.Plant defined and one
 * plant stored, so changes to an existing type are checked against real data.
 */
class BadTypeDefinitionsTest {
  private static final String GARDEN = "acme/garden/v1/garden.proto";
  private static final MemoryBackend backend = new MemoryBackend();
  private static Agent agent;
  private static SetpointClient client;
  private static Resource stored;

  @BeforeAll
  static void start() {
    agent = Agent.builder().port(0).acls(false).backend(backend).start();
    client = SetpointClient.connect("127.0.0.1:" + agent.port());
    stored = client.write(RuntimeTypesTest.plantDefinition());
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.registry().resolve(PLANT).isPresent());
    client.write(plant("fern", Plant.newBuilder().setSpecies("fern").setHeightCm(30).putNotes("soil", "wet").build()));
  }

  @AfterAll
  static void stop() {
    client.close();
    agent.close();
  }

  /** The garden file alone, with the given edit; its imports are the server's own files. */
  private static FileDescriptorSet garden(UnaryOperator<FileDescriptorProto.Builder> edit) {
    FileDescriptorSet.Builder out = FileDescriptorSet.newBuilder();
    for (FileDescriptorProto file : gardenFiles().getFileList()) {
      out.addFile(file.getName().equals(GARDEN) ? edit.apply(file.toBuilder()).build() : file);
    }
    return out.build();
  }

  private static Resource plantDefinition(FileDescriptorSet files) {
    return definition("garden-v1-plant", "acme.garden.v1.Plant", files, false);
  }

  private static Resource named(String name, String message, FileDescriptorSet files) {
    return definition(name, message, files, false);
  }

  /** A file of its own declaring one scoped message {@code kind} with one string field, in {@code pkg}. */
  private static FileDescriptorSet single(String pkg, String kind) {
    DescriptorProto message = DescriptorProto.newBuilder().setName(kind)
        .setOptions(MessageOptions.newBuilder().setExtension(io.setpoint.api.v1.AnnotationsProto.spec,
            io.setpoint.api.v1.ResourceTypeSpec.newBuilder().setScope(Scope.SCOPE_CLUSTER).build()))
        .addField(FieldDescriptorProto.newBuilder().setName("text").setNumber(1)
            .setType(FieldDescriptorProto.Type.TYPE_STRING).setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL))
        .build();
    return FileDescriptorSet.newBuilder().addFile(FileDescriptorProto.newBuilder()
        .setName(pkg.replace('.', '/') + "/single.proto").setPackage(pkg).setSyntax("proto3")
        .addDependency("setpoint/resource/v1/annotations.proto").addMessageType(message)).build();
  }

  static Stream<Arguments> badDefinitions() {
    FileDescriptorSet good = gardenFiles();
    return Stream.of(
        Arguments.of("no message named", named("garden-v1-plant", "", good),
            Status.Code.INVALID_ARGUMENT, "resource.data.message: must name the type's data message"),
        Arguments.of("no files", named("garden-v1-plant", "acme.garden.v1.Plant", FileDescriptorSet.getDefaultInstance()),
            Status.Code.INVALID_ARGUMENT, "resource.data.files: must hold the file that declares the message"),
        Arguments.of("a message the files do not declare", named("garden-v1-tree", "acme.garden.v1.Tree", good),
            Status.Code.INVALID_ARGUMENT, "no top-level message acme.garden.v1.Tree"),
        Arguments.of("a nested message", named("garden-v1-inner", "acme.garden.v1.Plant.Inner",
            garden(f -> { f.getMessageTypeBuilder(0).addNestedType(DescriptorProto.newBuilder().setName("Inner")); return f; })),
            Status.Code.INVALID_ARGUMENT, "no top-level message acme.garden.v1.Plant.Inner"),
        Arguments.of("a message without the scope option", named("garden-v1-leaf", "acme.garden.v1.Leaf", good),
            Status.Code.INVALID_ARGUMENT, "acme.garden.v1.Leaf has no scope: declare option (setpoint.resource.v1.spec)"),
        Arguments.of("a one-part package", named("garden-v1-plant", "garden.Plant", single("garden", "Plant")),
            Status.Code.INVALID_ARGUMENT, "the package of garden.Plant needs at least two parts"),
        Arguments.of("a version that is not one", named("garden-beta-plant", "acme.garden.beta.Plant",
            single("acme.garden.beta", "Plant")),
            Status.Code.INVALID_ARGUMENT, "would define garden.beta.Plant, which is not a valid type"),
        Arguments.of("a kind that is not one", named("garden-v1-plant", "acme.garden.v1.plant",
            single("acme.garden.v1", "plant")),
            Status.Code.INVALID_ARGUMENT, "which is not a valid type"),
        Arguments.of("a name that does not match the type", named("plants", "acme.garden.v1.Plant", good),
            Status.Code.INVALID_ARGUMENT, "resource.id.name: must be garden-v1-plant"),
        Arguments.of("an import missing from the set", named("garden-v1-plant", "acme.garden.v1.Plant",
            garden(f -> f.addDependency("acme/soil/v1/soil.proto"))),
            Status.Code.INVALID_ARGUMENT, "imports acme/soil/v1/soil.proto, which is not in the set before it"),
        Arguments.of("the same file twice", plantDefinition(good.toBuilder().addFile(good.getFile(good.getFileCount() - 1)).build()),
            Status.Code.INVALID_ARGUMENT, "appears twice"),
        Arguments.of("a file without a name", plantDefinition(garden(f -> f.clearName())),
            Status.Code.INVALID_ARGUMENT, "every file needs a name"),
        Arguments.of("a field of an undeclared message type", plantDefinition(garden(f -> {
              f.getMessageTypeBuilder(0).addField(FieldDescriptorProto.newBuilder().setName("root").setNumber(12)
                  .setTypeName(".acme.garden.v1.Root").setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL));
              return f;
            })),
            Status.Code.INVALID_ARGUMENT, "is not a valid file"),
        Arguments.of("two fields with one number", plantDefinition(garden(f -> {
              f.getMessageTypeBuilder(0).addField(FieldDescriptorProto.newBuilder().setName("twin").setNumber(1)
                  .setType(FieldDescriptorProto.Type.TYPE_STRING).setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL));
              return f;
            })),
            Status.Code.INVALID_ARGUMENT, "is not a valid file"),
        Arguments.of("a CEL rule that does not compile", plantDefinition(garden(f -> {
              MessageOptions options = f.getMessageTypeBuilder(0).getOptions();
              f.getMessageTypeBuilder(0).setOptions(options.toBuilder().setExtension(build.buf.validate.ValidateProto.message,
                  build.buf.validate.MessageRules.newBuilder().addCel(build.buf.validate.Rule.newBuilder()
                      .setId("broken").setExpression("this.no_such_field > 1")).build()));
              return f;
            })),
            Status.Code.INVALID_ARGUMENT, "does not compile"),
        Arguments.of("a type compiled into the server", named("core-v1-event", "acme.core.v1.Event",
            single("acme.core.v1", "Event")),
            Status.Code.INVALID_ARGUMENT, "core.v1.Event is compiled into this server"),
        Arguments.of("a message of the server's own files", named("core-v1-event", "setpoint.core.v1.Event",
            good.toBuilder().addFile(io.setpoint.api.core.v1.CoreProto.getDescriptor().toProto()).build()),
            Status.Code.INVALID_ARGUMENT, "which is compiled into the server"),
        Arguments.of("more files than allowed", plantDefinition(tooManyFiles()),
            Status.Code.INVALID_ARGUMENT, "at most 64 are allowed"),
        Arguments.of("data that is not a definition", Resource.newBuilder().setId(Ids.of(TypeDefinitions.TYPE, "garden-v1-plant"))
            .setData(Any.pack(Plant.getDefaultInstance())).build(),
            Status.Code.INVALID_ARGUMENT, "resource.data"),
        Arguments.of("files that do not decode", Resource.newBuilder().setId(Ids.of(TypeDefinitions.TYPE, "garden-v1-plant"))
            .setData(Any.newBuilder().setTypeUrl("type.googleapis.com/setpoint.core.v1.TypeDefinition")
                .setValue(ByteString.copyFrom(new byte[] {0x12, 0x05, 0x0a, 0x7f, 0x01}))).build(),
            Status.Code.INVALID_ARGUMENT, "cannot be decoded"),
        Arguments.of("an oversized descriptor", plantDefinition(garden(f -> {
              f.getMessageTypeBuilder(0).setOptions(f.getMessageTypeBuilder(0).getOptions().toBuilder()
                  .setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder().addField(99999,
                      com.google.protobuf.UnknownFieldSet.Field.newBuilder()
                          .addLengthDelimited(ByteString.copyFrom(new byte[2 << 20])).build()).build()));
              return f;
            })),
            Status.Code.RESOURCE_EXHAUSTED, "bytes"),
        Arguments.of("a field set in stored data, retyped", plantDefinition(withPlant(good, p -> p.getFieldBuilderList().stream()
                .filter(fd -> fd.getName().equals("height_cm")).forEach(fd -> fd.setType(FieldDescriptorProto.Type.TYPE_STRING).clearOptions()))),
            Status.Code.FAILED_PRECONDITION, "field 2 (height_cm) changes from int32 to string, and 1 stored resources set it"),
        Arguments.of("a field set in stored data, made repeated", plantDefinition(withPlant(good, p -> p.getFieldBuilderList().stream()
                .filter(fd -> fd.getName().equals("species")).forEach(fd -> fd.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).clearOptions()))),
            Status.Code.FAILED_PRECONDITION, "field 1 (species) changes from string to repeated string"),
        Arguments.of("a field set in stored data, removed", plantDefinition(withPlant(good, p -> p.removeField(3))),
            Status.Code.FAILED_PRECONDITION, "field 4 (notes) is removed, and 1 stored resources set it"),
        Arguments.of("a changed scope", plantDefinition(withPlant(good, p -> p.setOptions(p.getOptions().toBuilder()
                .setExtension(io.setpoint.api.v1.AnnotationsProto.spec,
                    io.setpoint.api.v1.ResourceTypeSpec.newBuilder().setScope(Scope.SCOPE_CLUSTER).build())))),
            Status.Code.FAILED_PRECONDITION, "the scope changes from SCOPE_NAMESPACE to SCOPE_CLUSTER while 1 resources are stored"));
  }

  private static FileDescriptorSet tooManyFiles() {
    FileDescriptorSet.Builder set = gardenFiles().toBuilder();
    for (int i = 0; i < DescriptorSets.MAX_FILES; i++) {
      set.addFile(FileDescriptorProto.newBuilder().setName("filler" + i + ".proto").setPackage("acme.filler"));
    }
    return set.build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badDefinitions")
  void isRefusedWithAClearErrorAndChangesNothing(String what, Resource bad, Status.Code code, String message) {
    long typesBefore = agent.registry().version();
    assertThatThrownBy(() -> client.write(bad))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
          assertThat(e.getMessage()).contains(message);
        });
    List<Resource> definitions = client.listAll(TypeDefinitions.TYPE, Tenancies.CLUSTER);
    assertThat(definitions).containsExactly(client.read(stored.getId()));
    assertThat(definitions.get(0).getVersion()).isEqualTo(stored.getVersion());
    assertThat(agent.registry().version()).isEqualTo(typesBefore);
    assertThat(client.listAll(PLANT, DEFAULT)).hasSize(1);
  }

  @Test
  void aDeleteWhileResourcesExistIsRefusedWithTheirCount() {
    assertThatThrownBy(() -> client.delete(stored.getId()))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getMessage()).contains("garden.v1.Plant still has 1 resource; delete them before its definition");
        });
    assertThat(client.read(stored.getId()).getVersion()).isEqualTo(stored.getVersion());
    assertThat(agent.registry().resolve(PLANT)).isPresent();
  }
}
