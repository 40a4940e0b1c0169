package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.cli.Main;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The product (setpoint-cli, the jar a distribution ships) carries none of the benchmarks: neither
 * their classes nor the load generator, and its manifest names neither module's jar.
 */
class ProductJarTest {
  private static final List<String> BENCH_PATHS =
      List.of("io/setpoint/bench/", "io/setpoint/cli/bench/", "io/setpoint/loadgen/", "setpoint/bench/");

  @Test
  void theCliHoldsNoBenchmarkOrLoadGeneratorClass() throws IOException, URISyntaxException {
    Path cli = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isDirectory(cli)) {
      // `mvn test`: the reactor gives the CLI's classes directory rather than its jar.
      try (Stream<Path> files = Files.walk(cli)) {
        assertThat(files.map(f -> cli.relativize(f).toString().replace('\\', '/') + "/"))
            .noneMatch(entry -> BENCH_PATHS.stream().anyMatch(entry::startsWith));
      }
      return;
    }
    try (JarFile jar = new JarFile(cli.toFile())) {
      assertThat(jar.stream().map(e -> e.getName()))
          .as("entries of %s", cli)
          .isNotEmpty()
          .noneMatch(entry -> BENCH_PATHS.stream().anyMatch(entry::startsWith));
      Manifest manifest = jar.getManifest();
      assertThat(manifest.getMainAttributes().getValue("Class-Path"))
          .as("the class path %s names", cli)
          .contains("lib/setpoint-client")
          .doesNotContain("setpoint-loadgen")
          .doesNotContain("setpoint-bench");
    }
  }
}
