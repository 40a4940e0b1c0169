package com.example.garden;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Manager;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the plant controller in its own JVM against a remote agent over gRPC: the same controller
 * {@link GardenAgent} runs in-process. Run it in several JVMs for high availability: they elect
 * one leader, which runs the controller with its writes fenced by its lease. When the agent
 * enforces ACLs, pass a token in {@code SETPOINT_TOKEN} whose policies grant {@code read}, {@code
 * list} and {@code write} on {@code garden.v1.Plant}, and {@code read} and {@code write} on {@code
 * core.v1.Lease}.
 *
 * <pre>
 * java -cp 'target/garden.jar:target/lib/*' com.example.garden.RemoteGarden [localhost:8500]
 * </pre>
 */
public final class RemoteGarden {
  private RemoteGarden() {}

  public static void main(String[] args) throws InterruptedException {
    String address = args.length > 0 ? args[0] : "localhost:8500";
    SetpointClient client = SetpointClient.builder()
        .address(address)
        .token(System.getenv("SETPOINT_TOKEN"))
        .build();
    Manager manager = start(client);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      manager.close();
      client.close();
      stopped.countDown();
    }, "remote-garden-shutdown"));
    stopped.await();
  }

  // snippet:start remote
  /**
   * Starts a manager running the plant controller through {@code client}, while it holds the
   * lease of the election {@code garden-controllers}.
   */
  static Manager start(SetpointClient client) {
    Manager manager = Manager.builder()
        .client(client)
        .leaderElection(LeaseElection.named("garden-controllers")
            .leaseDuration(Duration.ofSeconds(15)) // a standby takes over after 15 s without renewal
            .renewDeadline(Duration.ofSeconds(10)) // the leader steps down after 10 s without renewing
            .retryPeriod(Duration.ofSeconds(2))) //    and renews every 2 s
        .build();
    manager.register(PlantController.controller());
    manager.start();
    return manager;
  }
  // snippet:end remote
}
