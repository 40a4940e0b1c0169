package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.StringValue;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code setpoint agent -plugins DIR}: plugin jars built here, loaded, serving and refused. */
@Timeout(180)
class PluginsTest {
  private static final Type NOTE = Types.of("plug", "v1", "Note");

  @RegisterExtension final CliAgent agent = new CliAgent();
  @TempDir Path dir;
  private final List<CliRun> members = new ArrayList<>();

  @AfterEach
  void stopMembers() throws InterruptedException {
    ClusterArgs.stopAll(members);
  }

  private Path notesPluginDir() throws Exception {
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    PluginJars.build(dir.resolve("notes-build"), plugins.resolve("notes.jar"),
        Map.of("acme.plugin.NotesPlugin", PluginJars.NOTES_PLUGIN), List.of("acme.plugin.NotesPlugin"));
    return plugins;
  }

  private static Resource note(String name, String text) {
    return Resource.newBuilder().setId(Ids.of(NOTE, name)).setData(Any.pack(StringValue.of(text))).build();
  }

  @Test
  void aPluginServesItsTypeWithItsHooksAndRunsItsController() throws Exception {
    int port = agent.start("agent", "-dev", "-port", "0", "-plugins", notesPluginDir().toString());
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      Resource blank = client.write(note("first", ""));
      assertThat(blank.getData().unpack(StringValue.class).getValue()).as("the mutate hook's default").isEqualTo("(blank)");
      assertThatThrownBy(() -> client.write(note("second", "this is forbidden")))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("resource.data.value: must not say forbidden");
          });
      ID first = Ids.of(NOTE, "first");
      Resource read = await().atMost(Duration.ofSeconds(20))
          .until(() -> client.read(first), r -> r.getStatusMap().containsKey("plug.example.com/reader"));
      assertThat(read.getStatusOrThrow("plug.example.com/reader").getConditions(0).getType()).isEqualTo("Read");
    }
    assertThat(agent.messages()).anyMatch(m -> m.contains("plugin acme.plugin.NotesPlugin loaded"));
  }

  static Stream<Arguments> badPluginDirs() {
    return Stream.of(
        Arguments.of("a directory that is not there", "missing", "no such directory"),
        Arguments.of("a file, not a directory", "file", "not a directory"),
        Arguments.of("no jar in it", "empty", "holds no .jar file"),
        Arguments.of("a jar that is not a zip", "garbage", "cannot be opened"),
        Arguments.of("a jar without a services file", "no-services", "has no META-INF/services/io.setpoint.server.plugin.SetpointPlugin"),
        Arguments.of("a services file naming a class that is not there", "missing-class", "cannot be loaded"),
        Arguments.of("a plugin whose types() throws", "throws", "plugin acme.plugin.Broken failed to register its types: boom"),
        Arguments.of("two plugins registering one type", "twice", "type plug.v1.Note is already registered"));
  }

  private Path badDir(String kind) throws Exception {
    Path plugins = dir.resolve("bad-" + kind);
    switch (kind) {
      case "missing" -> { }
      case "file" -> Files.writeString(Files.createDirectories(dir).resolve("bad-file"), "not a directory");
      case "empty" -> Files.createDirectories(plugins);
      case "garbage" -> Files.writeString(Files.createDirectories(plugins).resolve("garbage.jar"), "not a zip");
      case "no-services" -> PluginJars.build(dir.resolve("b1"), plugins.resolve("p.jar"),
          Map.of("acme.plugin.NotesPlugin", PluginJars.NOTES_PLUGIN), List.of());
      case "missing-class" -> PluginJars.build(dir.resolve("b2"), plugins.resolve("p.jar"),
          Map.of("acme.plugin.NotesPlugin", PluginJars.NOTES_PLUGIN), List.of("acme.plugin.Absent"));
      case "throws" -> PluginJars.build(dir.resolve("b3"), plugins.resolve("p.jar"), Map.of("acme.plugin.Broken", """
          package acme.plugin;
          public final class Broken implements io.setpoint.server.plugin.SetpointPlugin {
            @Override public void types(io.setpoint.resource.Registry registry) { throw new IllegalStateException("boom"); }
          }
          """), List.of("acme.plugin.Broken"));
      case "twice" -> {
        PluginJars.build(dir.resolve("b4"), plugins.resolve("a.jar"),
            Map.of("acme.plugin.NotesPlugin", PluginJars.NOTES_PLUGIN), List.of("acme.plugin.NotesPlugin"));
        PluginJars.build(dir.resolve("b5"), plugins.resolve("b.jar"),
            Map.of("acme.other.NotesPlugin", PluginJars.NOTES_PLUGIN.replace("package acme.plugin;", "package acme.other;")),
            List.of("acme.other.NotesPlugin"));
      }
      default -> throw new IllegalArgumentException(kind);
    }
    return plugins;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPluginDirs")
  void aPluginDirectoryThatCannotBeUsedStopsTheAgentWithOneLine(String what, String kind, String message) throws Exception {
    CliRun run = CliRun.run("agent", "-dev", "-port", "0", "-plugins", badDir(kind).toString());

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.err()).startsWith("Error: ").contains(message);
    assertThat(run.err().strip().lines()).hasSize(1);
  }

  @Test
  void aClusterMemberWithoutAPluginTheOthersHaveRefusesToStartNamingIt() throws Exception {
    Path plugins = notesPluginDir();
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    members.add(CliRun.start(cluster.member(0, "-plugins", plugins.toString())));
    members.add(CliRun.start(cluster.member(1, "-plugins", plugins.toString())));
    try (SetpointClient first = SetpointClient.connect("127.0.0.1:" + api[0])) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> first.write(note("hello", "hi")) != null);
    }

    CliRun without = CliRun.run(cluster.member(2));

    assertThat(without.code()).as(without.toString()).isEqualTo(1);
    assertThat(without.err()).contains("this member's types differ from those the cluster recorded: lacks plug.v1.Note"
        + " (google.protobuf.StringValue SCOPE_CLUSTER)", "-replace-type-set");
  }
}
