package io.setpoint.testing.repo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The code the docs show is the code the build compiles and tests: every block with a {@code
 * <!-- snippet: PATH#NAME -->} reference equals that marked region of the file (examples/ is built
 * and tested against the installed artifacts by scripts/test), and in the tutorials,
 * getting-started.md and controllers.md, every Java, XML and proto block carries such a reference.
 * When this fails, copy the region shown as expected into the document.
 */
class DocSnippetsTest {
  private static final Path ROOT = RepoRoot.find();
  private static final Set<String> CHECKED_LANGUAGES = Set.of("java", "xml", "proto");

  @Test
  void everyReferencedBlockEqualsItsRegion() throws IOException {
    List<String> stale = new ArrayList<>();
    int checked = 0;
    for (Path doc : documents()) {
      for (Snippets.Block block : Snippets.blocks(doc)) {
        if (!block.referenced()) {
          continue;
        }
        checked++;
        String expected = Snippets.region(ROOT.resolve(block.path()), block.region());
        if (!expected.equals(block.text())) {
          stale.add(ROOT.relativize(doc) + ":" + block.line() + " differs from " + block.path() + "#"
              + block.region() + ", which is:\n" + expected + "\n");
        }
      }
    }
    assertThat(stale).as("stale doc snippets").isEmpty();
    assertThat(checked).as("referenced snippets found").isGreaterThanOrEqualTo(10);
  }

  @ParameterizedTest
  @ValueSource(strings = {"docs/getting-started.md", "docs/controllers.md"})
  void tutorialShowsNoCodeThatIsNotCompiled(String doc) throws IOException {
    List<String> unchecked = Snippets.blocks(ROOT.resolve(doc)).stream()
        .filter(block -> CHECKED_LANGUAGES.contains(block.language()) && !block.referenced())
        .map(block -> doc + ":" + block.line() + " (" + block.language() + ")")
        .toList();
    assertThat(unchecked).as("code blocks without a snippet reference").isEmpty();
  }

  private static List<Path> documents() throws IOException {
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      return Stream.concat(Stream.of(ROOT.resolve("README.md")), docs.filter(p -> p.toString().endsWith(".md")))
          .sorted()
          .toList();
    }
  }
}
