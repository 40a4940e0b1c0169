package io.setpoint.testing.repo;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root, found from the module directory the tests run in. */
final class RepoRoot {
  private RepoRoot() {}

  static Path find() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("examples"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no repository root (with mvnw and examples/) above " + Path.of("").toAbsolutePath());
  }
}
