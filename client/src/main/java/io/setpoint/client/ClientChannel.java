package io.setpoint.client;

import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The connection a {@link SetpointClient.Builder} makes of its settings: the agents and scheme of
 * the address, TLS, tracing and retries. The client shuts {@code channel} down when it closes,
 * and sends its calls through {@code calls}, which redial at once and carry the ACL token.
 *
 * @param channel the channel the client owns
 * @param calls the channel its calls go through
 */
record ClientChannel(ManagedChannel channel, Channel calls) {
  /**
   * Builds the channel to {@code address} (one or more agents, comma-separated, each {@code
   * host:port} with the same optional {@code http://} or {@code https://}). It connects on the
   * first call.
   *
   * @param token the ACL token, null or empty for none
   * @param trustedCa the CA to trust, null for the JVM's (TLS) or none (plaintext)
   * @param clientCertificate with {@code clientKey}, the certificate for mutual TLS; null for none
   * @param openTelemetry traces every call when not null
   * @throws IllegalArgumentException when the address is not {@code host:port}, mixes schemes or
   *     is plaintext with TLS files, or a TLS file cannot be used
   */
  static ClientChannel dial(String address, String token, Path trustedCa, Path clientCertificate, Path clientKey,
      OpenTelemetry openTelemetry) {
    List<HostPort> targets = new ArrayList<>();
    String scheme = null;
    for (String one : address.split(",", -1)) {
      String hostPort = one.strip();
      String oneScheme = "";
      if (hostPort.regionMatches(true, 0, "https://", 0, 8)) {
        hostPort = hostPort.substring(8);
        oneScheme = "https";
      } else if (hostPort.regionMatches(true, 0, "http://", 0, 7)) {
        hostPort = hostPort.substring(7);
        oneScheme = "http";
      }
      if (scheme != null && !scheme.equals(oneScheme)) {
        throw new IllegalArgumentException("address \"" + address + "\" mixes schemes: give every agent the same one");
      }
      scheme = oneScheme;
      hostPort = hostPort.endsWith("/") ? hostPort.substring(0, hostPort.length() - 1) : hostPort;
      targets.add(HostPort.parse(hostPort));
    }
    boolean https = scheme.equals("https");
    boolean http = scheme.equals("http");
    boolean tls = https || trustedCa != null || clientCertificate != null;
    if (http && tls) {
      throw new IllegalArgumentException(
          "address \"" + address + "\" is plaintext (http://) but TLS files were given; use https://");
    }
    NettyChannelBuilder builder;
    if (targets.size() == 1) {
      builder = NettyChannelBuilder.forAddress(targets.get(0).host(), targets.get(0).port());
    } else {
      AgentAddresses agents = new AgentAddresses(targets);
      builder = NettyChannelBuilder.forTarget(agents.target()).nameResolverFactory(agents);
    }
    builder
        // A page of large resources can exceed gRPC's 4 MiB default.
        .maxInboundMessageSize(256 << 20)
        .defaultServiceConfig(CallRetries.SERVICE_CONFIG)
        .enableRetry();
    if (tls) {
      builder.sslContext(ClientTls.context(trustedCa, clientCertificate, clientKey)).useTransportSecurity();
    } else {
      builder.usePlaintext();
    }
    if (openTelemetry != null) {
      builder.intercept(ClientTracing.of(openTelemetry));
    }
    ManagedChannel channel = builder.build();
    Channel calls = ClientInterceptors.intercept(channel, new ReconnectOnDemand(channel));
    if (token != null && !token.isEmpty()) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of(SetpointClient.TOKEN_HEADER, Metadata.ASCII_STRING_MARSHALLER), token);
      calls = ClientInterceptors.intercept(calls, MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return new ClientChannel(channel, calls);
  }
}
