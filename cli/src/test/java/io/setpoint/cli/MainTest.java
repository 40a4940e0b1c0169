package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;

/**
 * The top-level command: a run builds only the subcommand it names, so what every run depends on
 * (help, the version, inherited options, errors for a misspelt command) must not change with it.
 */
class MainTest {
  @Test
  void theVersionNeedsNoSubcommand() {
    assertThat(Main.commandLine(System.in, "--version").getSubcommands()).isEmpty();
    CliRun version = CliRun.run("--version");
    assertThat(version.code()).isZero();
    assertThat(version.out()).startsWith("setpoint ");
  }

  @Test
  void eachSubcommandIsListedUnderItsOwnName() {
    Main.SUBCOMMANDS.forEach((name, command) ->
        assertThat(command.getAnnotation(Command.class).name()).as(command.getName()).isEqualTo(name));
  }

  @Test
  void aNamedSubcommandIsTheOnlyOneBuiltAndKeepsTheInheritedOptions() {
    assertThat(Main.commandLine(System.in, "resource", "list").getSubcommands()).containsOnlyKeys("resource");
    CliRun help = CliRun.run("resource", "list", "-h");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("Usage: setpoint resource list", "-address", "-V, --version");
  }

  @Test
  void helpListsEveryCommand() {
    CliRun help = CliRun.run("-h");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("agent", "resource", "type", "acl", "operator", "snapshot", "bench",
        "controller", "why", "demo", "help");
    CliRun helpFor = CliRun.run("help", "snapshot");
    assertThat(helpFor.code()).isZero();
    assertThat(helpFor.out()).contains("Usage: setpoint snapshot");
  }

  @Test
  void aMisspeltCommandIsAUsageErrorWithSuggestions() {
    CliRun misspelt = CliRun.run("resorce", "list");
    assertThat(misspelt.code()).isEqualTo(Main.USAGE);
    assertThat(misspelt.err()).contains("Unmatched arguments", "resource");
  }

  /**
   * A client command ends its JVM without System.exit (see {@link Main#main}): what it printed,
   * on both streams, and its exit code must still reach the caller.
   */
  @Test
  void aCommandInAJvmOfItsOwnPrintsAllItsOutputAndExitsWithItsCode() throws Exception {
    Exited version = main("--version");
    assertThat(version.code()).isZero();
    assertThat(version.out()).startsWith("setpoint ");

    Exited unreachable = main("resource", "list", "demo.v2.Artist", "-address", "127.0.0.1:" + FreePorts.loopback());
    assertThat(unreachable.code()).isEqualTo(Main.FAILED);
    assertThat(unreachable.err()).contains("Error: cannot reach", "Is an agent running there?");

    Exited misspelt = main("resorce");
    assertThat(misspelt.code()).isEqualTo(Main.USAGE);
    assertThat(misspelt.err()).contains("Unmatched argument", "Run 'setpoint -h' for help.");
  }

  /**
   * A new user's first command: what it prints before it serves must not alarm them. The JVM gets
   * the options that {@code ./setpoint} gives it.
   */
  @Test
  void anAgentStartsWithoutWarnings(@TempDir Path dir) throws Exception {
    int port = FreePorts.loopback();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED"));
    if (Runtime.version().feature() >= 23) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "agent", "-dev", "-port", Integer.toString(port), "-bind", "127.0.0.1"));
    Path output = dir.resolve("agent.log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build();
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> http.send(ready, BodyHandlers.discarding()).statusCode() == 200);
    } finally {
      process.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
    }
    assertThat(Files.readAllLines(output)).noneMatch(line -> line.contains("WARN") || line.contains("ERROR"));
  }

  private record Exited(int code, String out, String err) {}

  private static Exited main(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).start();
    process.getOutputStream().close();
    // Both streams are short; reading them to the end is how the test waits for the exit.
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
    return new Exited(process.exitValue(), out, err);
  }
}
