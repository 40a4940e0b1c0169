package io.setpoint.cli;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Manager;
import io.setpoint.demo.DemoControllers;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code setpoint demo controllers}: the demo controllers of {@code agent -dev}, run in this process
 * against the agent at {@code -address} until SIGINT or SIGTERM. Start it several times for high
 * availability: the processes elect one leader on a lease in the agent, the others stand by with
 * primed caches, and the leader's writes are fenced by its lease.
 */
@Command(name = "controllers", description = {
    "Runs the demo controllers (demo.v2.Artist, demo.v1.RecordLabel) in this process against a running agent,"
        + " until Ctrl-C or SIGTERM. The agent must serve the demo types and run no controllers of its own"
        + " for them ('agent -dev -no-demo-controllers').",
    "Run it in several processes for high availability: they elect one leader on the lease core.v1.Lease/ELECTION,"
        + " the others stand by, and the server refuses the writes of a leader that lost its lease."})
final class DemoControllersCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin private ClientOptions clientOptions;

  @Option(names = "-election", paramLabel = "ELECTION", defaultValue = "demo-controllers",
      description = "The name of the lease the processes elect their leader on (default: ${DEFAULT-VALUE}).")
  private String election;

  @Option(names = "-no-election",
      description = "Run the controllers without an election: only safe when one process runs them.")
  private boolean noElection;

  @Option(names = "-holder", paramLabel = "ID",
      description = "This process's name in the election (default: host name, pid and a random suffix).")
  private String holder;

  @Mixin private ElectionOptions timing;

  @Override
  public Integer call() {
    Manager.Builder builder = Manager.builder();
    if (!noElection) {
      try {
        builder.leaderElection(election());
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    SetpointClient client = clientOptions.connect(spec.commandLine());
    Manager manager = builder.client(client).build();
    DemoControllers.register(manager);
    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop = () -> {
      manager.close();
      client.close();
      stopped.countDown();
    };
    Thread shutdown = new Thread(stop, "setpoint-demo-controllers-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    try {
      manager.start();
      spec.commandLine().getOut().println("demo controllers running against " + client.address()
          + (noElection ? " (no election)" : " (election " + election + ")") + "; Ctrl-C stops them");
      spec.commandLine().getOut().flush();
      stopped.await();
    } catch (InterruptedException e) {
      // Stopped by whoever runs us in-process (a test, an embedding): stop as on SIGINT.
      stop.run();
      Runtime.getRuntime().removeShutdownHook(shutdown);
    }
    return 0;
  }

  private LeaseElection.Builder election() {
    LeaseElection.Builder b = timing.applyTo(LeaseElection.named(election));
    return holder == null ? b : b.holder(holder);
  }
}
