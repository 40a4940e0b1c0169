package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.RemoteControllers;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.AclTypes;
import io.setpoint.server.Agent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The demo controllers in their own JVM against an agent with ACLs on, with a token from
 * {@code SETPOINT_TOKEN} whose policy is the one docs/security.md gives for them.
 */
class RemoteControllersAclTest {
  @Test
  void remoteControllersReconcileWithAToken() throws Exception {
    try (Agent agent = Agent.builder().port(0).types(DemoTypes::register).start();
        SetpointClient anonymous = SetpointClient.connect("127.0.0.1:" + agent.port());
        SetpointClient admin = SetpointClient.builder().address("127.0.0.1:" + agent.port())
            .token(anonymous.bootstrapAcls().getSecret()).build()) {
      admin.write(Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, "demo-controllers"))
          .setData(Any.pack(Policy.newBuilder()
              .addRules(Rule.newBuilder().setType("demo.*.*").addPermissions("read").addPermissions("write").addPermissions("list"))
              .addRules(Rule.newBuilder().setType("core.v1.Event").addPermissions("write"))
              .addRules(Rule.newBuilder().setType("core.v1.Lease").addPermissions("read").addPermissions("write"))
              .build()))
          .build());
      String token = admin.createToken(CreateTokenRequest.newBuilder().addPolicies("demo-controllers").build()).getSecret();

      Path log = Files.createTempFile("remote-controllers-acl", ".log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder command = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
          RemoteControllers.class.getName(), "127.0.0.1:" + agent.port())
          .redirectErrorStream(true)
          .redirectOutput(log.toFile());
      command.environment().put("SETPOINT_TOKEN", token);
      Process controllers = command.start();
      try {
        Resource artist = admin.write(Resource.newBuilder()
            .setId(Ids.of(DemoTypes.ARTIST, "remote-acl"))
            .setData(Any.pack(Artist.newBuilder().setName("Remote Artist").build())).build());

        await().atMost(Duration.ofSeconds(30)).until(() -> {
          Resource current = admin.readConsistent(artist.getId());
          return current.getStatusMap().containsKey(ArtistController.STATUS_KEY)
              && Conditions.holds(current.getStatusMap().get(ArtistController.STATUS_KEY), "Accepted");
        });
        assertThat(admin.listByOwner(artist.getId())).extracting(r -> r.getId().getName()).contains("remote-acl-greatest-hits");
      } finally {
        controllers.destroy();
        if (!controllers.waitFor(30, TimeUnit.SECONDS)) {
          controllers.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(log);
      }
    }
  }
}
