package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import static io.setpoint.storage.conformance.Fixtures.data;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Applied;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import io.setpoint.storage.raft.v1.SnapshotHeader;
import io.setpoint.testkit.Tmpfs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotFileTest {
  @TempDir Path dir;

  private static List<ByteString> encoded(List<Resource> resources) {
    return resources.stream().map(Resource::toByteString).toList();
  }

  private static List<Resource> resources(int n) {
    return java.util.stream.IntStream.range(0, n)
        .mapToObj(i -> resource(id("r" + i)).toBuilder().setVersion(Integer.toString(i + 1)).build())
        .toList();
  }

  @Test
  void readsBackWhatWasWritten() throws IOException {
    Path file = dir.resolve("snapshot.1_10");
    List<Resource> written = resources(3);
    SnapshotFile.write(file, new SnapshotFile.Contents(42, encoded(written)));
    SnapshotFile.Contents read = SnapshotFile.read(file);
    assertThat(read.revision()).isEqualTo(42);
    assertThat(read.resources()).containsExactlyElementsOf(encoded(written));
    assertThat(dir).isDirectoryNotContaining(p -> p.getFileName().toString().endsWith(".writing"));
  }

  @Test
  void theRequestsTheStoreRemembersComeBackInTheirOrder() throws IOException {
    Path file = dir.resolve("snapshot.1_10");
    List<Resource> written = resources(3);
    List<Applied> requests = List.of(new Applied("r2", written.get(1)), new Applied("r1", written.get(0)));
    SnapshotFile.Contents contents = new SnapshotFile.Contents(42, encoded(written), requests, RetainedHistory.none(42));
    SnapshotFile.write(file, contents);
    assertThat(SnapshotFile.read(file)).isEqualTo(contents);
  }

  @Test
  void theRetainedHistoryComesBackInItsOrder() throws IOException {
    Path file = dir.resolve("snapshot.1_10");
    Resource base = resource(id("r0")).toBuilder().setVersion("1").build();
    Resource updated = base.toBuilder().setVersion("3").build();
    Resource created = resource(id("r9")).toBuilder().setVersion("4").build();
    RetainedHistory history = RetainedHistory.of(2, List.of(base), List.of(
        new RetainedHistory.Change(3, updated, false),
        new RetainedHistory.Change(4, created, false),
        new RetainedHistory.Change(5, created, true)));
    SnapshotFile.Contents contents = new SnapshotFile.Contents(5, encoded(List.of(updated)), List.of(), history);
    SnapshotFile.write(file, contents);
    assertThat(SnapshotFile.read(file)).isEqualTo(contents);
  }

  @Test
  void aFileOfTheFormatWithoutHistoryRetainsNone() throws IOException {
    Path file = dir.resolve("snapshot.1_10");
    List<Resource> written = resources(2);
    try (OutputStream out = Files.newOutputStream(file)) {
      SnapshotHeader.newBuilder().setFormat(1).setRevision(42).setCount(written.size()).build().writeDelimitedTo(out);
      for (Resource r : written) {
        r.writeDelimitedTo(out);
      }
    }
    assertThat(SnapshotFile.read(file)).isEqualTo(new SnapshotFile.Contents(42, encoded(written)));
  }

  @Test
  void anEmptyStoreIsAValidSnapshot() throws IOException {
    Path file = dir.resolve("snapshot.1_1");
    SnapshotFile.write(file, new SnapshotFile.Contents(0, List.of()));
    assertThat(SnapshotFile.read(file)).isEqualTo(new SnapshotFile.Contents(0, List.of()));
  }

  @Test
  void aTruncatedFileIsRejected() throws IOException {
    Path file = dir.resolve("snapshot.1_10");
    SnapshotFile.write(file, new SnapshotFile.Contents(42, encoded(resources(3))));
    byte[] whole = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(whole, whole.length - 10));
    assertThatThrownBy(() -> SnapshotFile.read(file)).isInstanceOf(IOException.class);
  }

  @Test
  void trailingBytesAreRejected() throws IOException {
    Path file = dir.resolve("snapshot.1_10");
    SnapshotFile.write(file, new SnapshotFile.Contents(42, encoded(resources(2))));
    byte[] whole = Files.readAllBytes(file);
    byte[] longer = Arrays.copyOf(whole, whole.length + 3);
    Files.write(file, longer);
    assertThatThrownBy(() -> SnapshotFile.read(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("more than");
  }

  @Test
  void aWriteThatFindsTheDiskFullLeavesNoTemporaryFileAndNoSnapshot() throws IOException {
    Path mountPoint = Files.createDirectory(dir.resolve("disk"));
    try (Tmpfs disk = Tmpfs.mount(mountPoint, 1)) {
      Path file = disk.path().resolve("snapshot.1_10");
      List<Resource> tooMany = resources(2).stream()
          .map(r -> r.toBuilder().setData(data("x".repeat(1 << 20))).build())
          .toList();

      assertThatThrownBy(() -> SnapshotFile.write(file, new SnapshotFile.Contents(42, encoded(tooMany))))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("No space left on device");

      assertThat(disk.path()).isEmptyDirectory();
    }
  }

  @Test
  void leftoversOfInterruptedWritesAreDeletedAndNothingElse() throws IOException {
    Path kept = Files.write(dir.resolve("snapshot.1_10"), new byte[] {1});
    Path leftover = Files.write(dir.resolve("snapshot.1_20.writing"), new byte[] {2});

    assertThat(SnapshotFile.deleteLeftovers(dir)).containsExactly(leftover);

    assertThat(leftover).doesNotExist();
    assertThat(kept).exists();
  }
}
