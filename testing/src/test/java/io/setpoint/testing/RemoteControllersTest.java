package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.RemoteControllers;
import io.setpoint.demo.v2.Artist;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo controllers in their own JVM, against an agent that runs none: the same controller
 * code works over a remote gRPC client as in-process.
 */
class RemoteControllersTest {
  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  @Test
  void controllersInASeparateJvmReconcileTheAgentsResources() throws Exception {
    Path log = Files.createTempFile("remote-controllers", ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process controllers = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        RemoteControllers.class.getName(), "127.0.0.1:" + setpoint.agent().port())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    try {
      Resource artist = setpoint.client().write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, "remote"))
          .setData(Any.pack(Artist.newBuilder().setName("Remote Artist").build())).build());

      Resource accepted = setpoint.awaitCondition(artist.getId(), ArtistController.STATUS_KEY, "Accepted");

      assertThat(accepted.getStatusOrThrow(ArtistController.STATUS_KEY).getObservedGeneration())
          .isEqualTo(artist.getGeneration());
      assertThat(setpoint.client().listByOwner(artist.getId()))
          .extracting(r -> r.getId().getName()).contains("remote-greatest-hits");
    } finally {
      controllers.destroy(); // SIGTERM: the manager's shutdown hook stops the controllers
      if (!controllers.waitFor(30, TimeUnit.SECONDS)) {
        controllers.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      Files.deleteIfExists(log);
    }
    assertThat(controllers.exitValue()).as("exit code after SIGTERM").isIn(0, 143);
  }
}
