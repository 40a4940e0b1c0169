package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.client.SetpointClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code setpoint agent}'s settings from a config file and SETPOINT_* environment variables: flags
 * over the environment over the file, unknown keys refused by name, and {@code -print-config}
 * saying what is in effect and where each value came from.
 */
@Timeout(60)
class AgentSettingsTest {
  @RegisterExtension final CliAgent agent = new CliAgent();
  @TempDir Path dir;

  @Test
  void anAgentStartsFromAConfigFileAlone() throws Exception {
    Path config = write("agent.yaml", """
        dev: true
        port: 0
        bind: 127.0.0.1
        max-connections-per-client: 7
        """);

    int port = agent.start("agent", "-config", config.toString());

    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      assertThat(client.types().getTypesList()).isNotEmpty();
    }
    assertThat(agent.messages()).anyMatch(m -> m.contains("7 per client address"));
  }

  @Test
  void flagsWinOverTheEnvironmentAndTheEnvironmentOverTheFile() throws IOException {
    Path config = write("agent.yaml", """
        dev: true
        port: 1111
        history-mib: 64
        max-connections: 300
        """);
    Map<String, String> env = Map.of("SETPOINT_PORT", "2222", "SETPOINT_HISTORY_MIB", "32");

    CliRun run = CliRun.runWithEnv(env, "agent", "-config", config.toString(), "-history-mib", "16", "-print-config");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out().lines()).contains(
        "max-connections: 300  # file " + config,
        "port: 2222  # environment SETPOINT_PORT",
        "history-mib: 16  # flag -history-mib",
        "dev: true  # file " + config,
        "bind: 127.0.0.1  # default",
        "# tls-cert:  (not set)");
  }

  @Test
  void theConfigFileCanBeNamedByTheEnvironmentToo() throws IOException {
    Path config = write("agent.yaml", "dev: true\nport: 3333\n");

    CliRun run = CliRun.runWithEnv(Map.of("SETPOINT_CONFIG", config.toString()), "agent", "-print-config");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out().lines()).contains("port: 3333  # file " + config);
  }

  @Test
  void aKeyThatNamesNoFlagIsRefusedByName() throws IOException {
    Path config = write("agent.yaml", "dev: true\ndata-dri: /var/lib/setpoint\n");

    CliRun run = CliRun.run("agent", "-config", config.toString());

    assertThat(run.code()).isEqualTo(Main.USAGE);
    assertThat(run.err()).contains("-config " + config + ": unknown key 'data-dri'", "data-dir", "max-connections");
  }

  @Test
  void aFileThatIsNotAMapOfValuesIsRefusedWithWhatIsWrong() throws IOException {
    CliRun missing = CliRun.run("agent", "-config", dir.resolve("absent.yaml").toString());
    assertThat(missing.code()).isEqualTo(Main.USAGE);
    assertThat(missing.err()).contains("absent.yaml: no such file");

    CliRun list = CliRun.run("agent", "-config", write("list.yaml", "- dev\n").toString());
    assertThat(list.code()).isEqualTo(Main.USAGE);
    assertThat(list.err()).contains("list.yaml: must be a map of settings");

    CliRun nested = CliRun.run("agent", "-config", write("nested.yaml", "dev: true\nport: {a: 1}\n").toString());
    assertThat(nested.code()).isEqualTo(Main.USAGE);
    assertThat(nested.err()).contains("'port' must be one value or a list of values, not a map");

    CliRun broken = CliRun.run("agent", "-config", write("broken.yaml", "dev: [true\n").toString());
    assertThat(broken.code()).isEqualTo(Main.USAGE);
    assertThat(broken.err()).contains("broken.yaml: not YAML");
  }

  @Test
  void aValueTheFlagWouldRefuseIsRefusedNamingWhereItCameFrom() throws IOException {
    Path config = write("agent.yaml", "dev: true\nport: eighty\n");

    CliRun fromFile = CliRun.run("agent", "-config", config.toString());
    assertThat(fromFile.code()).isEqualTo(Main.USAGE);
    assertThat(fromFile.err()).contains("'eighty'", "-port", "(from file " + config + ")");

    CliRun fromEnv = CliRun.runWithEnv(Map.of("SETPOINT_MAX_CONNECTIONS", "0"), "agent", "-dev");
    assertThat(fromEnv.code()).isEqualTo(Main.USAGE);
    assertThat(fromEnv.err()).contains("-max-connections must be at least 1, was 0");
  }

  @Test
  void whatPrintConfigPrintsIsAConfigFileThatGivesTheSameSettings() throws IOException {
    Path config = write("agent.yaml", """
        data-dir: %s
        cluster:
          - n1=127.0.0.1:8501
          - n2=127.0.0.1:8511
        node: n1
        shard-group: "team-a"
        no-acls: true
        """.formatted(dir.resolve("data")));
    CliRun first = CliRun.run("agent", "-config", config.toString(), "-print-config");
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out().lines()).contains("cluster: n1=127.0.0.1:8501,n2=127.0.0.1:8511  # file " + config);

    Path printed = write("printed.yaml", first.out());
    CliRun second = CliRun.run("agent", "-config", printed.toString(), "-print-config");

    assertThat(second.code()).as(second.toString()).isZero();
    assertThat(settings(second.out())).isEqualTo(settings(first.out())).isNotEmpty();
  }

  /** The real environment of a JVM of its own, as an operator's service manager would set it. */
  @Test
  void anAgentProcessReadsItsSettingsFromItsEnvironment() throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "-print-config"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("SETPOINT_DATA_DIR", dir.resolve("data").toString());
    builder.environment().put("SETPOINT_CLIENT_RATE_LIMIT", "50");
    Process process = builder.start();
    process.getOutputStream().close();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as(err).isZero();
    assertThat(out.lines()).contains("data-dir: " + dir.resolve("data") + "  # environment SETPOINT_DATA_DIR",
        "client-rate-limit: 50  # environment SETPOINT_CLIENT_RATE_LIMIT");
  }

  /** The key: value lines of a -print-config output, without where each came from. */
  private static List<String> settings(String printed) {
    return printed.lines().filter(l -> !l.startsWith("#")).map(l -> l.replaceFirst("  # .*$", "")).toList();
  }

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }
}
