package io.setpoint.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tar.gz as a user gets it: unpacked into an empty directory, run from another empty directory
 * with an environment of PATH, a HOME that does not exist and JAVA_HOME, so nothing of the source
 * checkout can help it.
 */
class ArchiveIT {
  private static final String VERSION = System.getProperty("setpoint.dist.version");
  private static final Duration COMMAND = Duration.ofSeconds(60);
  private static final Duration STOP = Duration.ofSeconds(30);
  /** What a JVM returns after it ran its shutdown hooks for a SIGTERM. */
  private static final int SIGTERM_EXIT = 143;

  @TempDir
  static Path unpacked;
  private static Path home;

  @TempDir
  Path work;
  private final List<Child> children = new ArrayList<>();

  @BeforeAll
  static void unpack() throws IOException, InterruptedException {
    Path archive = Path.of(System.getProperty("setpoint.dist.archive"));
    assertThat(archive).as("the archive package made").isRegularFile();
    Child.Exited tar = Child.run(List.of("tar", "-xzf", archive.toString(), "-C", unpacked.toString()), unpacked,
        Map.of("PATH", "/usr/bin:/bin"), COMMAND);
    assertThat(tar.code()).as("%s", tar).isZero();
    home = unpacked.resolve("setpoint-" + VERSION);
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    for (Child child : children) {
      child.close();
    }
  }

  @Test
  void holdsTheLauncherTheProductJarsAndTheirNotices() throws IOException {
    assertThat(home.resolve("bin/setpoint")).isExecutable();
    assertThat(home.resolve("lib/protoc/protoc")).isExecutable();
    assertThat(home.resolve("conf/setpoint.yaml")).isRegularFile();
    assertThat(home.resolve("systemd/setpoint.service")).content()
        .contains("ExecStart=/opt/setpoint/bin/setpoint agent -config /etc/setpoint/setpoint.yaml", "User=setpoint");
    List<String> jars;
    try (Stream<Path> files = Files.list(home.resolve("lib/lib"))) {
      jars = files.map(f -> f.getFileName().toString()).sorted().toList();
    }
    assertThat(jars).contains("setpoint-client-" + VERSION + ".jar", "setpoint-server-" + VERSION + ".jar")
        .allMatch(name -> name.endsWith(".jar"))
        .noneMatch(name -> name.startsWith("setpoint-bench") || name.startsWith("setpoint-loadgen")
            || name.endsWith("-tests.jar") || name.startsWith("junit") || name.startsWith("assertj"));
    // The jar's manifest names exactly the jars of lib/lib: the launcher's class path is the jar alone.
    try (JarFile cli = new JarFile(home.resolve("lib/setpoint-cli.jar").toFile())) {
      List<String> classPath = Arrays.stream(cli.getManifest().getMainAttributes().getValue("Class-Path").split(" "))
          .map(entry -> entry.substring("lib/".length())).sorted().toList();
      assertThat(classPath).isEqualTo(jars);
    }
    String notices = Files.readString(home.resolve("THIRD-PARTY.txt"));
    // Each jar is listed as "group:artifact:packaging:version" at the end of a line; a classifier
    // (netty's native jars) is not shown, so artifact-version names the jar with or without one.
    List<String> listed = notices.lines().map(String::strip).filter(line -> line.startsWith("- "))
        .map(line -> line.substring(line.lastIndexOf(' ') + 1).split(":"))
        .filter(parts -> parts.length == 4).map(parts -> parts[1] + "-" + parts[3]).toList();
    assertThat(listed).isNotEmpty();
    List<String> unlisted = jars.stream().filter(jar -> !jar.startsWith("setpoint-"))
        .filter(jar -> listed.stream().noneMatch(name -> jar.equals(name + ".jar") || jar.startsWith(name + "-")))
        .toList();
    assertThat(unlisted).as("jars THIRD-PARTY.txt does not list").isEmpty();
    assertThat(notices).contains("License: ");
    assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License", "Version 2.0");
  }

  @Test
  void devAgentServesTheResourceCommands() throws Exception {
    int port = Child.freePorts(1)[0];
    Child agent = start(List.of("agent", "-dev", "-port", String.valueOf(port)), "dev-agent.log");
    agent.awaitReady(port);
    Map<String, String> client = env(Map.of("SETPOINT_ADDRESS", "127.0.0.1:" + port));
    Files.writeString(work.resolve("miles.yaml"), """
        id: {type: demo.v2.Artist, name: miles-davis}
        data: {name: Miles Davis}
        """);
    Child.Exited apply = setpoint(client, "resource", "apply", "-f", "miles.yaml");
    assertThat(apply.code()).as("%s", apply).isZero();
    Child.Exited list = setpoint(client, "resource", "list", "demo.v2.Artist");
    assertThat(list.code()).as("%s", list).isZero();
    assertThat(list.out()).contains("miles-davis");
    // type apply compiles with the protoc the archive ships in lib/protoc, importing the bundled protos.
    Files.writeString(work.resolve("garden.proto"), """
        syntax = "proto3";
        package acme.garden.v1;
        import "buf/validate/validate.proto";
        import "setpoint/resource/v1/annotations.proto";
        message Plant {
          option (setpoint.resource.v1.spec) = {scope: SCOPE_NAMESPACE};
          string species = 1 [(buf.validate.field).string.min_len = 1];
        }
        """);
    Child.Exited type = setpoint(client, "type", "apply", "-f", "garden.proto");
    assertThat(type.code()).as("%s", type).isZero();
    assertThat(type.out()).contains("garden.v1.Plant created");
    stopCleanly(agent);
  }

  @Test
  void durableAgentRunsFromAConfigFile() throws Exception {
    int[] ports = Child.freePorts(2);
    int port = ports[0];
    int raftPort = ports[1];
    Path data = work.resolve("data");
    Path config = work.resolve("setpoint.yaml");
    Files.writeString(config, """
        data-dir: %s
        node: node1
        bind: 127.0.0.1
        port: %d
        raft-port: %d
        """.formatted(data, port, raftPort));
    Child agent = start(List.of("agent", "-config", config.toString()), "durable-agent.log");
    agent.awaitReady(port);
    Map<String, String> client = env(Map.of("SETPOINT_ADDRESS", "127.0.0.1:" + port));
    Child.Exited bootstrap = setpoint(client, "acl", "bootstrap", "-secret-only");
    assertThat(bootstrap.code()).as("%s", bootstrap).isZero();
    String token = bootstrap.out().strip();
    assertThat(token).startsWith("spt_");
    Map<String, String> withToken = env(Map.of("SETPOINT_ADDRESS", "127.0.0.1:" + port, "SETPOINT_TOKEN", token));
    Child.Exited list = setpoint(withToken, "resource", "list", "acl.v1.Bootstrap");
    assertThat(list.code()).as("%s", list).isZero();
    assertThat(list.out()).contains("bootstrap");
    stopCleanly(agent);
    try (Stream<Path> stored = Files.walk(data)) {
      assertThat(stored.filter(Files::isRegularFile)).as("files of the store in %s", data).isNotEmpty();
    }
  }

  @Test
  void theSampleConfigIsOneTheAgentAccepts() throws Exception {
    Child.Exited printed = setpoint(env(Map.of()), "agent", "-config", home.resolve("conf/setpoint.yaml").toString(),
        "-print-config");
    assertThat(printed.code()).as("%s", printed).isZero();
    assertThat(printed.out()).contains("data-dir: /var/lib/setpoint", "node: node1", "port: 8500");
  }

  @Test
  void benchSaysItIsNotInTheDistribution() throws Exception {
    Child.Exited bench = setpoint(env(Map.of()), "bench", "chaos");
    assertThat(bench.code()).as("%s", bench).isEqualTo(1);
    assertThat(bench.err()).contains("the benchmarks are not in this build of setpoint", "source checkout");
  }

  @Test
  void runsThroughASymlinkFromAnyDirectory() throws Exception {
    Path links = Files.createDirectories(work.resolve("usr/local/bin"));
    Path link = Files.createSymbolicLink(links.resolve("setpoint"), home.resolve("bin/setpoint"));
    Path chained = Files.createSymbolicLink(work.resolve("sp"), work.relativize(link));
    for (Path launcher : List.of(link, chained)) {
      Child.Exited version = Child.run(List.of(launcher.toString(), "--version"), work, env(Map.of()), COMMAND);
      assertThat(version.code()).as("%s", version).isZero();
      assertThat(version.out()).contains("setpoint " + VERSION);
    }
    // Found on PATH by name alone, as a user runs it, and with no JAVA_HOME: the java on PATH.
    Map<String, String> onPath = env(Map.of());
    onPath.remove("JAVA_HOME");
    onPath.put("PATH", links + ":" + Path.of(System.getProperty("java.home"), "bin") + ":/usr/bin:/bin");
    Child.Exited byName = Child.run(List.of("sh", "-c", "setpoint --version"), work, onPath, COMMAND);
    assertThat(byName.out()).as("%s", byName).contains("setpoint " + VERSION);
  }

  @Test
  void refusesAJavaOlderThan21NamingIt() throws Exception {
    Path old = Files.createDirectories(work.resolve("jdk-17/bin"));
    Path java = Files.writeString(old.resolve("java"), "#!/bin/sh\necho should not run >&2\nexit 3\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(old.getParent().resolve("release"), "JAVA_VERSION=\"17.0.2\"\n");
    Map<String, String> env = env(Map.of());
    env.put("JAVA_HOME", old.getParent().toString());
    Child.Exited refused = Child.run(List.of(home.resolve("bin/setpoint").toString(), "--version"), work, env, COMMAND);
    assertThat(refused.code()).as("%s", refused).isEqualTo(1);
    assertThat(refused.err()).contains("Java 21 or newer is needed", java.toString(), "Java 17.0.2", "JAVA_HOME=")
        .doesNotContain("should not run");
  }

  @Test
  void usesTheAotCachesWithTheRuntimeThatMadeThem() throws Exception {
    assumeTrue(Files.exists(home.resolve("lib/setpoint-cli.aot")),
        "the build made no AOT caches (JDK older than 25, or -Dsetpoint.aot.skip), so the archive has none");
    assertThat(Files.readString(home.resolve("lib/aot-runtime")).strip()).isEqualTo(System.getProperty("java.runtime.version"));
    // AOTMode=on makes the JVM fail rather than run without the cache, so success proves it mapped it.
    for (String command : List.of("--version", "agent")) {
      List<String> args = command.equals("agent") ? List.of("agent", "-h") : List.of(command);
      Child.Exited run = setpoint(env(Map.of("SETPOINT_JAVA_OPTS", "-XX:AOTMode=on")), args.toArray(String[]::new));
      assertThat(run.code()).as("%s with the %s cache: %s", args, command, run).isZero();
    }
  }

  private Child start(List<String> args, String logName) throws IOException {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/setpoint").toString()));
    command.addAll(args);
    Child child = Child.start(command, work, env(Map.of()), work.resolve(logName));
    children.add(child);
    return child;
  }

  private Child.Exited setpoint(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/setpoint").toString()));
    command.addAll(List.of(args));
    return Child.run(command, work, env, COMMAND);
  }

  private void stopCleanly(Child agent) throws InterruptedException {
    assertThat(agent.terminate(STOP)).as("the exit code after SIGTERM; log:\n%s", agent.log()).isEqualTo(SIGTERM_EXIT);
    assertThat(agent.log()).contains("Setpoint agent stopped in").doesNotContain("ERROR", "Exception");
  }

  /** PATH, a HOME that does not exist, and the JDK running the tests as JAVA_HOME, plus {@code extra}. */
  private Map<String, String> env(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", "/usr/bin:/bin");
    env.put("HOME", work.resolve("no-such-home").toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.putAll(extra);
    return env;
  }
}
