package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.LocalCluster;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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

  /** The benchmarks live in setpoint-bench, which the CLI's own class path does not carry. */
  @Test
  void benchOnTheClisOwnClassPathSaysWhereTheBenchmarksAre() {
    CliRun bench = CliRun.run("bench", "writes", "-nodes", "1");
    assertThat(bench.code()).isEqualTo(Main.FAILED);
    assertThat(bench.err()).contains("the benchmarks are not in this build of setpoint", "./setpoint bench");
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
   * A new user's first command: what it prints before it serves must not alarm them. Started as
   * the benchmarks start agents, with the JVM options of {@code ./setpoint}.
   */
  @Test
  void anAgentStartsWithoutWarnings() throws Exception {
    List<String> output;
    try (LocalCluster agent = AgentProcess.start(new AgentProcess.Config(
        AgentProcess.Mode.DEV, 1, 0, false, List.of(), List.of(), Duration.ofSeconds(60)))) {
      output = Files.readAllLines(agent.dir().resolve("n1.log"));
    }
    assertThat(output).noneMatch(line -> line.contains("WARN") || line.contains("ERROR"));
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
