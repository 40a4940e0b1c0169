package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.storage.BackupFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code OperatorService/SaveSnapshot} on an in-memory agent: a store of more chunks than the
 * server queues (so its writer waits for the client), saved twice, and a client that stops reading.
 */
class SaveSnapshotTest {
  private static final int ARTISTS = 800; // about 6.4 MiB: seven chunks, more than MAX_QUEUED

  private static void fill(SetpointClient client) {
    String filler = "x".repeat(8 * 1024);
    for (int i = 0; i < ARTISTS; i++) {
      client.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "a" + i))
          .setData(Any.pack(Artist.newBuilder().setName("a" + i).setDescription(filler).build())).build());
    }
  }

  private static void assertWhole(ByteArrayOutputStream out) throws Exception {
    assertThat(out.size()).isGreaterThan((SnapshotStream.MAX_QUEUED + 2) * SnapshotStream.CHUNK);
    BackupFile.Contents contents = BackupFile.read(new ByteArrayInputStream(out.toByteArray()));
    assertThat(contents.resources()).filteredOn(r -> r.getId().getType().equals(DemoTypes.ARTIST)).hasSize(ARTISTS);
    assertThat(contents.header().getNode()).isEqualTo("memory");
  }

  @Test
  void aStoreOfMoreChunksThanAreQueuedIsSentWholeAndCanBeSavedAgain() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      fill(client);
      for (int attempt = 0; attempt < 2; attempt++) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        client.saveSnapshot(out);
        assertWhole(out);
      }
    }
  }

  @Test
  void aClientThatStopsReadingEndsTheSaveAndAnotherOneCanStart() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      fill(client);
      OutputStream failing = new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          throw new IOException("disk full");
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          throw new IOException("disk full");
        }
      };
      assertThatThrownBy(() -> client.saveSnapshot(failing)).hasMessageContaining("disk full");

      // The server's writer, waiting for the client to read, is let go and the next save runs.
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        out.reset();
        client.saveSnapshot(out);
      });
      assertWhole(out);
    }
  }
}
