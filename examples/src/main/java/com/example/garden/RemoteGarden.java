package com.example.garden;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.manager.Manager;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the plant controller in its own JVM against a remote agent over gRPC: the same controller
 * {@link GardenAgent} runs in-process. When the agent enforces ACLs, pass a token in {@code
 * SETPOINT_TOKEN} whose policies grant {@code read}, {@code list} and {@code write} on
 * {@code garden.v1.Plant}.
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
  /** Starts a manager running the plant controller through {@code client}. */
  static Manager start(SetpointClient client) {
    Manager manager = Manager.builder().client(client).build();
    manager.register(PlantController.controller());
    manager.start();
    return manager;
  }
  // snippet:end remote
}
