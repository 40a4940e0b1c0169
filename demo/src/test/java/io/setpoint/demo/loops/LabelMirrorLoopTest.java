package io.setpoint.demo.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.controller.TerminalException;
import io.setpoint.demo.v1.RecordLabel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalogue side of the mirror example, without a server: which files are entries and what
 * they hold. The mirroring itself runs against a real agent in the testing module
 * ({@code LabelMirrorLoopTest} there).
 */
class LabelMirrorLoopTest {
  @TempDir Path dir;

  @Test
  void onlyPropertiesFilesNamedLikeResourcesAreEntries() throws Exception {
    Files.writeString(dir.resolve("motown.properties"), "name=Motown Records\n");
    Files.writeString(dir.resolve("Not-A-Label.properties"), "name=Shouting\n");
    Files.writeString(dir.resolve("motown.properties~"), "name=Editor backup\n");
    Files.writeString(dir.resolve("notes.txt"), "not a label\n");
    Files.createDirectory(dir.resolve("folder.properties"));

    assertThat(LabelMirrorLoop.catalogueKeys(dir)).containsExactly("motown");
  }

  @Test
  void anEntryIsReadWhenHandledAndIsAbsentOnceItsFileGoes() throws Exception {
    Files.writeString(dir.resolve("stax.properties"), "name = Stax Records \ndescription=Memphis, 1957\n");

    assertThat(LabelMirrorLoop.readEntry(dir, "stax")).contains(new LabelMirrorLoop.Entry("stax",
        RecordLabel.newBuilder().setName("Stax Records").setDescription("Memphis, 1957").build()));

    Files.delete(dir.resolve("stax.properties"));
    assertThat(LabelMirrorLoop.readEntry(dir, "stax")).isEmpty();
  }

  @Test
  void anEntryWithoutANameFailsTerminally() throws Exception {
    Files.writeString(dir.resolve("anonymous.properties"), "description=who knows\n");

    assertThatThrownBy(() -> LabelMirrorLoop.readEntry(dir, "anonymous"))
        .isInstanceOf(TerminalException.class)
        .hasMessageContaining("anonymous.properties has no name");
  }
}
