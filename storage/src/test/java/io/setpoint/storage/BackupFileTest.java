package io.setpoint.storage;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.setpoint.api.v1.Resource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The snapshot file of a backup: what it holds, and every way a file is refused instead of half read. */
class BackupFileTest {
  private static final Instant TAKEN = Instant.parse("2026-11-26T15:00:00.123Z");
  private static final List<Resource> RESOURCES = List.of(
      resource(id("a")).toBuilder().setVersion("3").build(), resource(id("b")).toBuilder().setVersion("7").build());

  private static byte[] file() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BackupFile.write(out, StoreSnapshot.of(9, RESOURCES), "n2", TAKEN);
    return out.toByteArray();
  }

  private static BackupFile.Contents read(byte[] bytes) throws IOException {
    return BackupFile.read(new ByteArrayInputStream(bytes));
  }

  @Test
  void whatIsWrittenIsReadBackWithItsHeaderAndChecksum() throws IOException {
    BackupFile.Contents contents = read(file());

    assertThat(contents.resources()).isEqualTo(RESOURCES);
    assertThat(contents.header().getRevision()).isEqualTo(9);
    assertThat(contents.header().getCount()).isEqualTo(2);
    assertThat(contents.header().getNode()).isEqualTo("n2");
    assertThat(contents.header().getTaken().getNanos()).isEqualTo(123_000_000);
    assertThat(contents.sha256()).hasSize(64);
  }

  @Test
  void aFileIsCheckedWhileEachResourceIsHandedOverInOrderAsEncoded() throws IOException {
    List<ByteString> seen = new ArrayList<>();
    BackupFile.Summary summary = BackupFile.read(new ByteArrayInputStream(file()), seen::add);

    assertThat(seen).containsExactly(RESOURCES.get(0).toByteString(), RESOURCES.get(1).toByteString());
    assertThat(summary.count()).isEqualTo(2);
    assertThat(summary.header().getRevision()).isEqualTo(9);
    assertThat(summary.sha256()).isEqualTo(read(file()).sha256());
  }

  @Test
  void aResourceThatIsNotOneIsNamedWhenDecoded() throws IOException {
    StoreSnapshot garbage = new StoreSnapshot(9, List.of(RESOURCES.get(0).toByteString(), ByteString.copyFromUtf8("\u00ff\u00ff")));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BackupFile.write(out, garbage, "n2", TAKEN);
    BackupFile.Contents contents = read(out.toByteArray());

    assertThatThrownBy(contents::resources).isInstanceOf(IOException.class)
        .hasMessageContaining("the file is damaged at resource 2 of 2");
  }

  @Test
  void aChangedByteFailsTheChecksum() throws IOException {
    byte[] bytes = file();
    int inAResource = bytes.length - 40;
    bytes[inAResource] ^= 1;

    assertThatThrownBy(() -> read(bytes)).isInstanceOf(IOException.class).satisfies(e ->
        assertThat(e.getMessage()).containsAnyOf("checksum mismatch", "the file is damaged"));
  }

  @Test
  void aFileCutShortOrWithBytesAfterItsEndIsRefused() throws IOException {
    byte[] bytes = file();

    assertThatThrownBy(() -> read(Arrays.copyOf(bytes, 40))).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> read(Arrays.copyOf(bytes, bytes.length + 1)))
        .hasMessage("the file goes on after its checksum: it is not one snapshot file");
    assertThatThrownBy(() -> read("not a snapshot".getBytes()))
        .hasMessage("not a Setpoint snapshot file (it does not start with SETPOINT-SNAPSHOT)");
  }
}
