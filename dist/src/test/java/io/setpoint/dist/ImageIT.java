package io.setpoint.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OCI image archive: its index, manifest and config say what the image runs, and its layers hold
 * the runtime, the jars and the files it needs. As root, the layers unpacked into a directory and
 * entered with chroot (with /proc and /dev, as a container runtime gives them) run the image's Java
 * and its default command, a durable agent, as the image's user.
 */
class ImageIT {
  private static final String VERSION = System.getProperty("setpoint.dist.version");
  private static final Duration COMMAND = Duration.ofSeconds(60);
  /** The CLI's jar: setpoint-cli.jar from the reactor, setpoint-cli-VERSION.jar from a local repository. */
  private static final String CLI_JAR = "app/libs/setpoint-cli(-[^/]+)?\\.jar";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> PATH = Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
  /**
   * Enters the root $1 the way a container runtime would: as a mount of its own (the JVM looks up the
   * mount a file is on), with /proc and /dev; then runs the rest as the user $2.
   */
  private static final String ENTER = "r=$1; u=$2; shift 2; mount --bind \"$r\" \"$r\" && mount -t proc proc \"$r/proc\""
      + " && mount --rbind /dev \"$r/dev\" && exec chroot --userspec=\"$u\" \"$r\" \"$@\"";

  @TempDir
  static Path image;
  private static JsonNode config;
  /** Each layer's entries, in layer order, keyed by the layer's blob. */
  private static final Map<Path, List<String>> LAYERS = new LinkedHashMap<>();

  private final List<Child> children = new ArrayList<>();

  @BeforeAll
  static void readImage() throws Exception {
    Path tar = Path.of(System.getProperty("setpoint.dist.image"));
    assertThat(tar).as("the image package made").isRegularFile();
    Child.Exited unpacked = Child.run(List.of("tar", "-xf", tar.toString(), "-C", image.toString()), image, PATH, COMMAND);
    assertThat(unpacked.code()).as("%s", unpacked).isZero();
    assertThat(image.resolve("oci-layout")).content().contains("imageLayoutVersion");
    JsonNode index = JSON.readTree(image.resolve("index.json").toFile());
    assertThat(index.path("manifests")).hasSize(1);
    JsonNode entry = index.path("manifests").get(0);
    assertThat(entry.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.manifest.v1+json");
    assertThat(entry.path("annotations").path("org.opencontainers.image.ref.name").asText()).isEqualTo("setpoint:" + VERSION);
    JsonNode manifest = JSON.readTree(blob(entry.path("digest").asText()).toFile());
    config = JSON.readTree(blob(manifest.path("config").path("digest").asText()).toFile());
    for (JsonNode layer : manifest.path("layers")) {
      assertThat(layer.path("mediaType").asText()).isEqualTo("application/vnd.oci.image.layer.v1.tar+gzip");
      Path file = blob(layer.path("digest").asText());
      Child.Exited listed = Child.run(List.of("tar", "-tzf", file.toString(), "--warning=no-unknown-keyword"), image, PATH, COMMAND);
      assertThat(listed.code()).as("%s", listed).isZero();
      LAYERS.put(file, listed.out().lines().map(name -> name.startsWith("./") ? name.substring(2) : name).toList());
    }
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    for (Child child : children) {
      child.close();
    }
  }

  @Test
  void configRunsTheAgentAsANonRootUserWithItsPortsAndVolume() {
    JsonNode container = config.path("config");
    assertThat(strings(container.path("Entrypoint")))
        .startsWith("/opt/java/bin/java", "@/app/jvm.args", "-cp", "@/app/jib-classpath-file")
        .endsWith("io.setpoint.cli.Main");
    assertThat(strings(container.path("Cmd"))).containsExactly("agent", "-data-dir", "/var/lib/setpoint", "-bind", "0.0.0.0");
    assertThat(container.path("User").asText()).isEqualTo("10001:10001");
    assertThat(names(container.path("ExposedPorts"))).containsExactlyInAnyOrder("8500/tcp", "8501/tcp");
    assertThat(names(container.path("Volumes"))).containsExactly("/var/lib/setpoint");
    assertThat(config.path("os").asText()).isEqualTo("linux");
    String arch = System.getProperty("os.arch");
    assertThat(config.path("architecture").asText()).as("the build machine's %s", arch)
        .isEqualTo(arch.equals("aarch64") ? "arm64" : arch.equals("x86_64") ? "amd64" : arch);
  }

  @Test
  void layersHoldTheRuntimeItsLibrariesAndTheProductJars() {
    List<String> all = LAYERS.values().stream().flatMap(List::stream).toList();
    assertThat(all).contains("opt/java/bin/java", "opt/java/lib/server/libjvm.so", "opt/java/lib/modules",
        "lib64/ld-linux-x86-64.so.2", "etc/passwd", "app/jvm.args", "app/jib-classpath-file", "app/libs/protoc/protoc",
        "var/lib/setpoint/", "tmp/");
    assertThat(all).anyMatch(name -> name.matches("lib/.*/libc\\.so\\.6"))
        .anyMatch(name -> name.matches(CLI_JAR))
        .anyMatch(name -> name.matches("app/libs/setpoint-server-.*\\.jar"))
        .noneMatch(name -> name.contains("setpoint-bench") || name.contains("setpoint-loadgen") || name.endsWith("-tests.jar"))
        .noneMatch(name -> name.startsWith("opt/java/include/") || name.startsWith("opt/java/man/") || name.contains("src.zip"));
    // The third-party jars, which change least, in a layer of their own before the project's.
    assertThat(LAYERS.values()).anyMatch(layer -> layer.stream().anyMatch(n -> n.startsWith("app/libs/netty-"))
        && layer.stream().noneMatch(n -> n.startsWith("app/libs/setpoint-") || n.startsWith("opt/")));
  }

  @Test
  void carriesTheSameJarsAsTheArchive() throws Exception {
    Path archive = Path.of(System.getProperty("setpoint.dist.archive"));
    Child.Exited listed = Child.run(List.of("tar", "-tzf", archive.toString()), image, PATH, COMMAND);
    assertThat(listed.code()).as("%s", listed).isZero();
    String lib = "setpoint-" + VERSION + "/lib/lib/";
    List<String> archived = new ArrayList<>(listed.out().lines().filter(name -> name.startsWith(lib) && name.endsWith(".jar"))
        .map(name -> name.substring(lib.length())).toList());
    List<String> imaged = LAYERS.values().stream().flatMap(List::stream)
        .filter(name -> name.startsWith("app/libs/") && name.endsWith(".jar")).toList();
    assertThat(imaged).filteredOn(name -> name.matches(CLI_JAR)).hasSize(1);
    assertThat(imaged.stream().filter(name -> !name.matches(CLI_JAR)).map(name -> name.substring("app/libs/".length())))
        .containsExactlyInAnyOrderElementsOf(archived);
  }

  @Test
  void itsJavaAndItsDefaultCommandRunAsItsUser() throws Exception {
    assumeTrue(new UnixSystem().getUid() == 0,
        "running the image's runtime needs chroot and mount, which need root (CI runs as root); this run is uid "
            + new UnixSystem().getUid());
    Path root = Files.createDirectories(image.resolve("rootfs"));
    for (Path layer : LAYERS.keySet()) {
      Child.Exited extracted = Child.run(List.of("tar", "-xzf", layer.toString(), "-C", root.toString(),
          "--warning=no-unknown-keyword"), image, PATH, COMMAND);
      assertThat(extracted.code()).as("%s", extracted).isZero();
    }
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    String user = config.path("config").path("User").asText();
    assertThat(Files.readString(root.resolve("etc/passwd"))).contains("setpoint:x:10001:10001:");

    Child.Exited java = Child.run(enter(root, user, List.of("/opt/java/bin/java", "-version")), image, PATH, COMMAND);
    assertThat(java.code()).as("%s", java).isZero();
    assertThat(java.err()).contains("Runtime Environment", "Server VM");

    List<String> entrypoint = strings(config.path("config").path("Entrypoint"));
    List<String> version = new ArrayList<>(entrypoint);
    version.add("--version");
    Child.Exited cli = Child.run(enter(root, user, version), image, PATH, COMMAND);
    assertThat(cli.code()).as("%s", cli).isZero();
    assertThat(cli.out()).contains("setpoint " + VERSION);

    // The default command, on ports of the test's choosing: a durable member storing in the volume.
    int[] ports = Child.freePorts(2);
    int port = ports[0];
    List<String> agent = new ArrayList<>(entrypoint);
    agent.addAll(strings(config.path("config").path("Cmd")));
    agent.addAll(List.of("-port", String.valueOf(port), "-raft-port", String.valueOf(ports[1])));
    Child member = Child.start(enter(root, user, agent), image, PATH, image.resolve("agent.log"));
    children.add(member);
    member.awaitReady(port);
    assertThat(member.terminate(Duration.ofSeconds(30))).as("exit after SIGTERM; log:\n%s", member.log()).isEqualTo(143);
    assertThat(member.log()).contains("Setpoint agent stopped in").doesNotContain("ERROR", "Exception");
    try (Stream<Path> stored = Files.list(root.resolve("var/lib/setpoint"))) {
      assertThat(stored).as("the store in the image's data directory").isNotEmpty();
    }
  }

  private static List<String> enter(Path root, String user, List<String> command) {
    // A mount namespace of its own, so /proc and /dev are unmounted when the process ends.
    List<String> entered = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "--",
        "sh", "-c", ENTER, "sh", root.toString(), user));
    entered.addAll(command);
    return entered;
  }

  /** The blob named by {@code digest}, checked against it. */
  private static Path blob(String digest) throws IOException, NoSuchAlgorithmException {
    assertThat(digest).startsWith("sha256:");
    Path file = image.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha256)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    assertThat("sha256:" + HexFormat.of().formatHex(sha256.digest())).as("the digest of %s", file).isEqualTo(digest);
    return file;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
