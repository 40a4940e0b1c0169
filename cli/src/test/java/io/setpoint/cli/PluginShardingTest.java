package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.StringValue;
import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin's SHARDED controller on two members of a cluster started with {@code -shard-group}:
 * the members split its keys, each reconciling only its share. Agents started through the CLI,
 * the plugin jar built here.
 */
@Timeout(240)
class PluginShardingTest {
  private static final Type ITEM = Types.of("shard", "v1", "Item");
  /** Each member's status key on the items it reconciled: this and the member's name. */
  private static final String OWNER = "shard.example.com/";
  private static final int ITEMS = 40;

  /** {@code shard.v1.Item}: each reconcile writes a status under a key naming the member that ran it. */
  private static final String ITEMS_PLUGIN = """
      package acme.plugin;

      import com.google.protobuf.StringValue;
      import io.setpoint.api.Statuses.Conditions;
      import io.setpoint.api.Types;
      import io.setpoint.api.v1.Resource;
      import io.setpoint.api.v1.Scope;
      import io.setpoint.api.v1.Status;
      import io.setpoint.api.v1.Type;
      import io.setpoint.controller.Controller;
      import io.setpoint.controller.Controller.Placement;
      import io.setpoint.controller.Result;
      import io.setpoint.controller.Manager;
      import io.setpoint.controller.Sharding;
      import io.setpoint.resource.Registration;
      import io.setpoint.resource.Registry;
      import io.setpoint.server.plugin.SetpointPlugin;

      public final class ItemsPlugin implements SetpointPlugin {
        public static final Type ITEM = Types.of("shard", "v1", "Item");

        @Override
        public void types(Registry registry) {
          registry.register(Registration.of(ITEM, StringValue.class).scope(Scope.SCOPE_CLUSTER).build());
        }

        @Override
        public void controllers(Manager manager) {
          String member = manager.sharding().map(Sharding::member).orElse("no group");
          manager.register(Controller.forType(ITEM).named("item-owner").placement(Placement.SHARDED)
              .reconciler((ctx, tools, req) -> {
                Resource item = tools.cache().get(req.id()).orElse(null);
                if (item != null) {
                  tools.client().writeStatus(item.getId(), "shard.example.com/" + member,
                      Conditions.set(Status.newBuilder(), Conditions.isTrue("Owned", "Owned", "by " + member)).build());
                }
                return Result.done();
              }));
        }
      }
      """;

  @TempDir Path dir;
  private final List<CliRun> members = new ArrayList<>();

  @AfterEach
  void stopMembers() throws InterruptedException {
    ClusterArgs.stopAll(members);
  }

  /** The members that reconciled {@code item}. */
  private static List<String> owners(Resource item) {
    return item.getStatusMap().keySet().stream().filter(k -> k.startsWith(OWNER))
        .map(k -> k.substring(OWNER.length())).sorted().toList();
  }

  @Test
  void twoMembersOfAShardGroupSplitAPluginsShardedControllersKeys() throws Exception {
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    PluginJars.build(dir.resolve("build"), plugins.resolve("items.jar"),
        Map.of("acme.plugin.ItemsPlugin", ITEMS_PLUGIN), List.of("acme.plugin.ItemsPlugin"));
    ClusterArgs cluster = new ClusterArgs(dir, 2);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 2; i++) {
      members.add(CliRun.start(cluster.member(i, "-plugins", plugins.toString(), "-shard-group", "items")));
    }
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + api[0])) {
      // Both members act on the split of both before the items come (each heartbeat publishes the
      // members its holder acts on), so none is reconciled by a member about to hand it over.
      List<String> both = List.of(cluster.name(0), cluster.name(1)).stream().sorted().toList();
      await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> client.listAll(Types.LEASE, Tenancies.CLUSTER).stream()
          .map(Leases::of).filter(l -> l.getKey().equals("items") && l.getViewList().equals(both)).count() == 2);
      for (int i = 0; i < ITEMS; i++) {
        client.write(Resource.newBuilder().setId(Ids.of(ITEM, "item-" + i)).setData(Any.pack(StringValue.of("x"))).build());
      }

      await().atMost(Duration.ofSeconds(60)).until(() -> client.listAll(ITEM, Tenancies.CLUSTER).stream().noneMatch(r -> owners(r).isEmpty()));
      List<Resource> items = client.listAll(ITEM, Tenancies.CLUSTER);

      // Each item reconciled by one member only, and each member reconciled a share.
      assertThat(items).allSatisfy(r -> assertThat(owners(r)).as(r.getId().getName()).hasSize(1));
      Map<String, Long> perMember = items.stream()
          .collect(Collectors.groupingBy(r -> owners(r).get(0), Collectors.counting()));
      assertThat(perMember.keySet()).isEqualTo(Set.of(cluster.name(0), cluster.name(1)));
    }
  }
}
