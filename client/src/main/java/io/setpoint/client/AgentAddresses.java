package io.setpoint.client;

import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.List;

/**
 * Several agents, any of which may answer: resolves the client's channel to every address in the
 * order given, so that gRPC's pick-first balancer talks to the first it can reach and moves to the
 * next when that one goes away. Each address keeps its own authority, so TLS checks the name of
 * the agent actually reached.
 */
final class AgentAddresses extends NameResolverProvider {
  static final String SCHEME = "setpoint-agents";

  private final List<HostPort> agents;

  AgentAddresses(List<HostPort> agents) {
    this.agents = List.copyOf(agents);
  }

  /** The channel target this provider resolves. */
  String target() {
    return SCHEME + ":///" + agents.get(0).host() + ":" + agents.get(0).port();
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!SCHEME.equals(targetUri.getScheme())) {
      return null;
    }
    String authority = agents.get(0).host() + ":" + agents.get(0).port();
    return new NameResolver() {
      @Override
      public String getServiceAuthority() {
        return authority;
      }

      @Override
      public void start(Listener2 listener) {
        List<EquivalentAddressGroup> groups = agents.stream().map(AgentAddresses::group).toList();
        listener.onResult(ResolutionResult.newBuilder().setAddresses(groups).build());
      }

      @Override
      public void shutdown() {}
    };
  }

  private static EquivalentAddressGroup group(HostPort agent) {
    SocketAddress address = new InetSocketAddress(agent.host(), agent.port());
    return new EquivalentAddressGroup(address, Attributes.newBuilder()
        .set(EquivalentAddressGroup.ATTR_AUTHORITY_OVERRIDE, agent.host() + ":" + agent.port()).build());
  }

  @Override
  public String getDefaultScheme() {
    return SCHEME;
  }

  @Override
  protected boolean isAvailable() {
    return true;
  }

  @Override
  protected int priority() {
    return 5;
  }
}
