package io.setpoint.testing.repo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnippetsTest {
  @TempDir
  Path dir;

  @Test
  void aRegionLeavesOutMarkersAndCommonIndentation() throws IOException {
    Path source = Files.writeString(dir.resolve("A.java"), """
        class A {
          // snippet:start body
          void a() {
            // snippet:start inner
            run();
            // snippet:end inner

          }
          // snippet:end body
        }
        """);

    assertThat(Snippets.region(source, "body")).isEqualTo("void a() {\n  run();\n\n}");
    assertThat(Snippets.region(source, "inner")).isEqualTo("run();");
  }

  @Test
  void aMissingRegionIsNamed() throws IOException {
    Path source = Files.writeString(dir.resolve("B.java"), "// snippet:start b\n");

    assertThatThrownBy(() -> Snippets.region(source, "b"))
        .hasMessageContaining("no region b");
  }

  @Test
  void blocksCarryTheReferenceAboveThem() throws IOException {
    Path doc = Files.writeString(dir.resolve("doc.md"), """
        Text.

        <!-- snippet: src/A.java#body -->
        ```java
        void a() {}
        ```

        ```sh
        ls
        ```
        """);

    assertThat(Snippets.blocks(doc)).containsExactly(
        new Snippets.Block(4, "java", "void a() {}", "src/A.java", "body"),
        new Snippets.Block(8, "sh", "ls", null, null));
  }

  @Test
  void aReferenceNotFollowedByABlockIsAnError() throws IOException {
    Path doc = Files.writeString(dir.resolve("doc.md"), "<!-- snippet: src/A.java#body -->\n\n```java\n```\n");

    assertThatThrownBy(() -> Snippets.blocks(doc)).hasMessageContaining("doc.md:1");
  }
}
