package io.setpoint.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;

/**
 * A call made while the channel cannot connect dials the agent again at once. gRPC waits between
 * attempts to connect, longer after each failure (1 s, then 1.6 times more each time, up to two
 * minutes), and fails calls at once meanwhile. So after an agent came back from a restart, calls
 * to it failed until that wait was over: seconds after a restart of a few seconds, up to two
 * minutes after a long outage. Redialling only when the application calls keeps a client that
 * does not call from knocking on an agent that is down.
 */
final class ReconnectOnDemand implements ClientInterceptor {
  private final ManagedChannel channel;

  ReconnectOnDemand(ManagedChannel channel) {
    this.channel = channel;
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      channel.resetConnectBackoff();
    }
    return next.newCall(method, options);
  }
}
