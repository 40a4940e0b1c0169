package io.setpoint.loadgen;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The one way both targets open channels: grpc-java over its shaded Netty transport (the stack
 * {@code io.setpoint.client.SetpointClient} uses), plaintext, one channel (one HTTP/2
 * connection) per endpoint, shared by the clients that talk to that endpoint.
 */
final class Channels {
  private Channels() {}

  /** A channel to each {@code host:port}. */
  static List<ManagedChannel> open(List<String> endpoints) {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("no endpoints");
    }
    List<ManagedChannel> channels = new ArrayList<>();
    for (String endpoint : endpoints) {
      int colon = endpoint.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("endpoint \"" + endpoint + "\" must be host:port");
      }
      channels.add(NettyChannelBuilder
          .forAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)))
          .usePlaintext()
          .maxInboundMessageSize(16 << 20)
          .build());
    }
    return channels;
  }

  static void close(List<ManagedChannel> channels) {
    channels.forEach(ManagedChannel::shutdownNow);
    for (ManagedChannel channel : channels) {
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
