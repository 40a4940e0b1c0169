package io.setpoint.demo;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the demo controllers in their own JVM against a remote agent, over gRPC: the same
 * controllers the agent runs in-process with {@code -dev}. Several such processes elect one leader
 * on the lease {@code demo-controllers} ({@code setpoint demo controllers} does the same, with
 * options). When the agent enforces ACLs, pass a token in {@code SETPOINT_TOKEN}; its policies need
 * {@code read}, {@code write} and {@code list} on {@code demo.*.*}, {@code read} and {@code write}
 * on {@code core.v1.Lease} and {@code write} on {@code core.v1.Event} (see docs/security.md). For an
 * agent serving TLS, like the CLI: {@code SETPOINT_CACERT} (the CA's PEM file; an {@code
 * https://} address trusts the JVM's CAs), and for mutual TLS {@code SETPOINT_CLIENT_CERT} and
 * {@code SETPOINT_CLIENT_KEY}.
 *
 * <pre>
 * SETPOINT_TOKEN=... java -cp ... io.setpoint.demo.RemoteControllers localhost:8500
 * </pre>
 */
public final class RemoteControllers {
  private RemoteControllers() {}

  // snippet:start main
  public static void main(String[] args) throws InterruptedException {
    String address = args.length > 0 ? args[0] : "localhost:8500";
    CountDownLatch stopped = new CountDownLatch(1);
    SetpointClient client = SetpointClient.builder()
        .address(address)
        .token(System.getenv("SETPOINT_TOKEN"))
        .tls(envPath("SETPOINT_CACERT"))
        .clientCertificate(envPath("SETPOINT_CLIENT_CERT"), envPath("SETPOINT_CLIENT_KEY"))
        .build();
    Manager manager = Manager.builder().client(client).leaderElection("demo-controllers").build();
    DemoControllers.register(manager);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      manager.close();
      client.close();
      stopped.countDown();
    }, "setpoint-remote-controllers-shutdown"));
    manager.start();
    stopped.await();
  }
  // snippet:end main

  private static Path envPath(String name) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? null : Path.of(value);
  }
}
