package io.setpoint.server.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.agent.Agent;
import io.setpoint.storage.BackupFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/** {@code OperatorService/SaveSnapshot} on an in-memory agent: a store of several chunks, saved twice. */
class SaveSnapshotTest {
  @Test
  void aStoreLargerThanOneChunkIsSentWholeAndCanBeSavedAgain() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      String filler = "x".repeat(8 * 1024);
      for (int i = 0; i < 400; i++) { // about 3.2 MiB: four chunks
        client.write(Resource.newBuilder()
            .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "a" + i))
            .setData(Any.pack(Artist.newBuilder().setName("a" + i).setDescription(filler).build())).build());
      }
      for (int attempt = 0; attempt < 2; attempt++) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        client.saveSnapshot(out);
        assertThat(out.size()).isGreaterThan(3 * SnapshotStream.CHUNK);
        BackupFile.Contents contents = BackupFile.read(new ByteArrayInputStream(out.toByteArray()));
        assertThat(contents.resources()).filteredOn(r -> r.getId().getType().equals(DemoTypes.ARTIST)).hasSize(400);
        assertThat(contents.header().getNode()).isEqualTo("memory");
      }
    }
  }
}
