package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.storage.memory.MemoryBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Page tokens are sealed under a key the store holds, not one of each process: two agents over one
 * store, as two members of a cluster, continue each other's listings (a client that fails over
 * mid-listing keeps its place). A key of each process would fail this.
 */
class SharedPageTokensTest {
  private final MemoryBackend store = new MemoryBackend();
  private final List<Agent> agents = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    agents.forEach(Agent::close);
  }

  @Test
  void aListingBegunOnOneMemberContinuesOnAnother() {
    ResourceServiceGrpc.ResourceServiceBlockingStub first = member();
    ResourceServiceGrpc.ResourceServiceBlockingStub second = member();
    List<String> names = List.of("a", "b", "c", "d");
    for (String name : names) {
      first.write(WriteRequest.newBuilder().setResource(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, name))
          .setData(Any.pack(Artist.newBuilder().setName(name).build()))).build());
    }

    // The second member has never sealed a token: it reads the key the first one stored.
    List<String> seen = new ArrayList<>();
    String token = "";
    int page = 0;
    do {
      ListResponse response = (page++ % 2 == 0 ? first : second).list(ListRequest.newBuilder()
          .setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "default"))
          .setPageSize(1).setPageToken(token).build());
      response.getResourcesList().forEach(r -> seen.add(r.getId().getName()));
      token = response.getNextPageToken();
    } while (!token.isEmpty());
    assertThat(seen).isEqualTo(names);
  }

  private ResourceServiceGrpc.ResourceServiceBlockingStub member() {
    Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).backend(store).start();
    agents.add(agent);
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", agent.port()).usePlaintext().build();
    channels.add(channel);
    return ResourceServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }
}
