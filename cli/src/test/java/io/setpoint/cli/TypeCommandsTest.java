package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.server.Agent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code setpoint type ...}, run in-process against a real agent: .proto files compiled by the
 * distribution's protoc, the types they declare served, and files the CLI refuses before writing.
 */
@Timeout(120)
class TypeCommandsTest {
  private static final Type PLANT = Types.of("garden", "v1", "Plant");
  private static final Type BED = Types.of("garden", "v1", "Bed");
  private static final String GARDEN = """
      syntax = "proto3";
      package acme.garden.v1;
      import "buf/validate/validate.proto";
      import "setpoint/resource/v1/annotations.proto";
      import "soil.proto";

      message Plant {
        option (setpoint.resource.v1.spec) = {scope: SCOPE_NAMESPACE};
        string species = 1 [(buf.validate.field).string.min_len = 1];
        Soil soil = 2;
      }

      message Bed {
        option (setpoint.resource.v1.spec) = {scope: SCOPE_PARTITION};
        double width_m = 1;
      }

      message Note { string text = 1; }
      """;
  private static final String SOIL = """
      syntax = "proto3";
      package acme.garden.v1;
      message Soil { string kind = 1; }
      """;

  @TempDir Path dir;
  private Agent agent;
  private SetpointClient client;
  private String address;

  @BeforeEach
  void start() {
    agent = Agent.builder().port(0).acls(false).start();
    address = "127.0.0.1:" + agent.port();
    client = SetpointClient.connect(address);
  }

  @AfterEach
  void stop() {
    client.close();
    agent.close();
  }

  private CliRun type(String... args) {
    return CliRun.run(Stream.concat(Stream.of("type"), Stream.concat(Stream.of(args), Stream.of("-address", address)))
        .toArray(String[]::new));
  }

  private Path file(String name, String content) throws IOException {
    Path path = dir.resolve(name);
    Files.createDirectories(path.getParent());
    return Files.writeString(path, content);
  }

  private long definitions() {
    return client.listAll(Types.TYPE_DEFINITION, Tenancies.CLUSTER).size();
  }

  @Test
  void everyScopedMessageOfAFileBecomesATypeServedAtOnce() throws Exception {
    file("soil.proto", SOIL);
    Path garden = file("garden.proto", GARDEN);

    CliRun applied = type("apply", "-f", garden.toString());

    assertThat(applied.code()).as(applied.toString()).isZero();
    assertThat(applied.out())
        .contains("garden.v1.Plant created (definition garden-v1-plant, version")
        .contains("garden.v1.Bed created (definition garden-v1-bed, version");
    // Served when the command returns: no waiting here.
    assertThat(agent.registry().resolve(PLANT)).isPresent();
    assertThat(agent.registry().resolve(BED)).isPresent();
    // The definition holds the user's files, the import included, and none of the bundled ones.
    TypeDefinition plant = client.read(Ids.of(Types.TYPE_DEFINITION, "garden-v1-plant")).getData().unpack(TypeDefinition.class);
    assertThat(plant.getMessage()).isEqualTo("acme.garden.v1.Plant");
    assertThat(plant.getFiles().getFileList()).extracting(f -> f.getName()).containsExactly("soil.proto", "garden.proto");

    assertThat(type("apply", "-f", garden.toString()).out()).contains("garden.v1.Plant unchanged");
    CliRun list = type("list");
    assertThat(list.out()).containsPattern("garden\\.v1\\.Plant +namespace +runtime +acme\\.garden\\.v1\\.Plant")
        .containsPattern("core\\.v1\\.Event +cluster +compiled");
    CliRun read = type("read", "Plant");
    assertThat(read.out()).contains("message:     acme.garden.v1.Plant", "scope:       namespace")
        .containsPattern("2 +soil +acme\\.garden\\.v1\\.Soil");

    CliRun bad = CliRun.runWithStdin("""
        {"id": {"type": "garden.v1.Plant", "name": "nameless"}, "data": {"species": ""}}""",
        "resource", "apply", "-f", "-", "-address", address);
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).contains("resource.data.species", "string.min_len");

    CliRun deleted = type("delete", "garden.v1.Bed");
    assertThat(deleted.code()).as(deleted.toString()).isZero();
    assertThat(client.findConsistent(Ids.of(Types.TYPE_DEFINITION, "garden-v1-bed"))).isEmpty();
  }

  @Test
  void aBreakingChangeIsListedAndForceAcceptsOnlyWhatLosesNoData() throws Exception {
    file("soil.proto", SOIL);
    Path garden = file("garden.proto", GARDEN);
    assertThat(type("apply", "-f", garden.toString()).code()).isZero();
    client.write(Resource.newBuilder().setId(Ids.of(BED, Tenancies.partition("default"), "north"))
        .setData(com.google.protobuf.Any.newBuilder().setTypeUrl("type.googleapis.com/acme.garden.v1.Bed")
            .setValue(com.google.protobuf.ByteString.copyFrom(new byte[] {9, 0, 0, 0, 0, 0, 0, -16, 63})))
        .build());
    Path changed = file("garden.proto", GARDEN.replace("double width_m = 1;", "string width_m = 1;")
        .replace("string species = 1", "bytes species = 1").replace(" [(buf.validate.field).string.min_len = 1]", ""));

    CliRun refused = type("apply", "-f", changed.toString());
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).contains("field 1 (species) changes from string to bytes (no stored resource sets it; --force allows it)");

    CliRun forced = type("apply", "-f", changed.toString(), "--force");
    assertThat(forced.code()).isEqualTo(1);
    assertThat(forced.out()).contains("garden.v1.Plant updated");
    assertThat(forced.err()).contains("field 1 (width_m) changes from double to string, and 1 stored resources set it");
  }

  static Stream<Arguments> badFiles() {
    return Stream.of(
        Arguments.of("a syntax error", "syntax = \"proto3\";\npackage acme.garden.v1;\nmessage A { string a = 1 }\n",
            "does not compile", "Expected \";\""),
        Arguments.of("a missing import", "syntax = \"proto3\";\npackage acme.garden.v1;\nimport \"nowhere.proto\";\n",
            "does not compile", "nowhere.proto"),
        Arguments.of("no scope option", "syntax = \"proto3\";\npackage acme.garden.v1;\nmessage A { string a = 1; }\n",
            "declares no type", "option (setpoint.resource.v1.spec)"),
        Arguments.of("a one-part package", scoped("garden", "Plant"), "needs at least two parts", "acme.garden.v1 gives garden.v1"),
        Arguments.of("a version that is not one", scoped("acme.garden.beta", "Plant"), "garden.beta.Plant", "which is not valid"),
        Arguments.of("a kind that is not one", scoped("acme.garden.v1", "plant"), "garden.v1.plant", "which is not valid"),
        Arguments.of("an empty file", "", "declares no type", "option (setpoint.resource.v1.spec)"),
        Arguments.of("an unknown scope", scoped("acme.garden.v1", "Plant").replace("SCOPE_CLUSTER", "SCOPE_GALAXY"),
            "does not compile", "SCOPE_GALAXY"),
        Arguments.of("a rule on the wrong field type", scoped("acme.garden.v1", "Plant")
                .replace("string name = 1;", "string name = 1 [(buf.validate.field).int32.gt = 1];")
                .replace("import \"setpoint", "import \"buf/validate/validate.proto\";\nimport \"setpoint"),
            "does not compile", "protovalidate"));
  }

  private static String scoped(String pkg, String kind) {
    return "syntax = \"proto3\";\npackage " + pkg + ";\nimport \"setpoint/resource/v1/annotations.proto\";\n"
        + "message " + kind + " {\n  option (setpoint.resource.v1.spec) = {scope: SCOPE_CLUSTER};\n  string name = 1;\n}\n";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void aBadFileIsRefusedWithAClearErrorAndNothingWritten(String what, String content, String error, String detail)
      throws Exception {
    Path bad = file("bad.proto", content);

    CliRun run = type("apply", "-f", bad.toString());

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.err()).startsWith("Error: ").contains(error).contains(detail);
    assertThat(definitions()).isZero();
  }

  @Test
  void aFileThatIsNotThereOrIsADirectoryIsNamed() {
    CliRun missing = type("apply", "-f", dir.resolve("missing.proto").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("missing.proto: no such file");
    CliRun directory = type("apply", "-f", dir.toString());
    assertThat(directory.code()).isEqualTo(1);
    assertThat(directory.err()).contains("it is a directory");
    assertThat(definitions()).isZero();
  }
}
