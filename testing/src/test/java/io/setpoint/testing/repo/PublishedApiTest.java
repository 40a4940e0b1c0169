package io.setpoint.testing.repo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The public API of every library module is a reviewed file, {@code MODULE/api/setpoint-MODULE.api}:
 * a change to a public type or signature fails this test until the file changes in the same commit.
 * To accept a change, rerun with {@code -Dsetpoint.api.update=true} ({@code ./scripts/api-update})
 * and review the file's diff with the code's.
 */
class PublishedApiTest {
  private static final Path ROOT = RepoRoot.find();

  @ParameterizedTest
  @ValueSource(strings = {"api", "resource", "storage", "storage-raft", "server", "client", "controller", "testing",
      "spring-boot-starter", "spring-boot-test"})
  void theModulesPublicApiIsItsCheckedInFile(String module) throws IOException {
    Path apiFile = ROOT.resolve(module).resolve("api").resolve("setpoint-" + module + ".api");
    String types = ApiDump.of(classes(module), ROOT.resolve(module).resolve("src/main/java"),
        PublishedApiTest.class.getClassLoader());
    String dump = header(module, ApiDump.topLevelTypes(types)) + types;
    if (Boolean.getBoolean("setpoint.api.update")) {
      Files.createDirectories(apiFile.getParent());
      Files.writeString(apiFile, dump, StandardCharsets.UTF_8);
    }
    assertThat(apiFile).as("the checked-in API of " + module).exists();
    String checkedIn = Files.readString(apiFile, StandardCharsets.UTF_8);
    if (!checkedIn.equals(dump)) {
      throw new AssertionError("The public API of setpoint-" + module + " differs from " + ROOT.relativize(apiFile)
          + ".\nIf the change is meant, run ./scripts/api-update and commit the file with the code.\n"
          + difference(checkedIn, dump));
    }
  }

  private static String header(String module, long topLevelTypes) {
    return "# The public API of setpoint-" + module + ": each type a user can reach, then its members;\n"
        + "# " + topLevelTypes + " public top-level types.\n"
        + "# Checked by PublishedApiTest; ./scripts/api-update rewrites it.\n\n";
  }

  /** The module's compiled classes on this test's class path: its target/classes, or its jar. */
  private static Path classes(String module) {
    String jarPrefix = "setpoint-" + module + "-";
    Path own = ROOT.resolve(module).resolve("target").resolve("classes");
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry).toAbsolutePath().normalize();
      String file = path.getFileName().toString();
      if (path.equals(own) || (file.startsWith(jarPrefix) && file.endsWith(".jar")
          && Character.isDigit(file.charAt(jarPrefix.length())) && !file.endsWith("-tests.jar"))) {
        return path;
      }
    }
    throw new AssertionError("setpoint-" + module + " is not on the test class path");
  }

  /** The lines only in the checked-in file (-) and only in the build (+). */
  private static String difference(String checkedIn, String built) {
    Set<String> before = new LinkedHashSet<>(Arrays.asList(checkedIn.split("\n")));
    Set<String> after = new LinkedHashSet<>(Arrays.asList(built.split("\n")));
    List<String> out = new ArrayList<>();
    before.stream().filter(l -> !after.contains(l)).forEach(l -> out.add("- " + l));
    after.stream().filter(l -> !before.contains(l)).forEach(l -> out.add("+ " + l));
    return String.join("\n", out);
  }
}
