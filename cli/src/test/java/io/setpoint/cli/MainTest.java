package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
}
