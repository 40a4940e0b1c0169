package io.setpoint.testing.repo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The code reads like a map: every package of every module says what it holds (its package-info),
 * and no source file grows past {@value #MAX_LINES} lines, where it would be doing more than one
 * job. The work queue is the one exception: its locking spans the whole class (see its Javadoc).
 */
class SourceLayoutTest {
  private static final Path ROOT = RepoRoot.find();
  static final int MAX_LINES = 450;
  private static final Path EXEMPT = Path.of("controller/src/main/java/io/setpoint/controller/queue/WorkQueue.java");

  @Test
  void noSourceFileIsOverTheLimitButTheWorkQueue() {
    Map<Path, Long> over = new TreeMap<>();
    for (Path file : mainSources()) {
      long lines = lines(file);
      if (lines > MAX_LINES && !ROOT.relativize(file).equals(EXEMPT)) {
        over.put(ROOT.relativize(file), lines);
      }
    }
    assertThat(over).as("files over %d lines (split them by job)", MAX_LINES).isEmpty();
    assertThat(lines(ROOT.resolve(EXEMPT))).as("the exempt file exists and is the large one").isGreaterThan(MAX_LINES);
  }

  @Test
  void everyPackageHasAPackageInfo() {
    List<Path> missing = mainSources().stream().map(Path::getParent).distinct()
        .filter(dir -> !Files.exists(dir.resolve("package-info.java")))
        .map(ROOT::relativize).sorted().toList();
    assertThat(missing).as("packages without a package-info.java").isEmpty();
  }

  private static List<Path> mainSources() {
    try (Stream<Path> files = Files.walk(ROOT)) {
      List<Path> sources = files
          .filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/"))
          .filter(p -> !p.startsWith(ROOT.resolve("examples")) && !p.toString().contains("/target/"))
          .toList();
      assertThat(sources).as("main sources under %s", ROOT).hasSizeGreaterThan(100);
      return sources;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
