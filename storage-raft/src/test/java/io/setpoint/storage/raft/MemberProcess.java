package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A one-member store in a JVM of its own, for tests that kill it with SIGKILL. Arguments: {@code
 * write|dump dataDir port}. {@code write} has concurrent writers create resources forever and
 * prints {@code ACK name version} for each write the store acknowledged; {@code dump} prints {@code
 * HAS name version} for every stored resource, then {@code DONE}. Logs go to stderr.
 */
final class MemberProcess {
  private MemberProcess() {}

  static final RaftConfig.Tuning TUNING = TestCluster.FAST.withSnapshots(64, 4096);

  /** The member's configuration, for starting it again in the test's JVM. */
  static RaftConfig config(Path dataDir, int port) {
    return new RaftConfig("solo", dataDir, port, Map.of("solo", "127.0.0.1:" + port), Limits.DEFAULT, TUNING);
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Path dataDir = Path.of(args[1]);
    int port = Integer.parseInt(args[2]);
    RaftBackend backend = RaftBackend.start(config(dataDir, port));
    PrintStream out = System.out;
    if (mode.equals("write")) {
      // Names unique to this run: a restarted writer must not re-create what an earlier one did.
      String run = Long.toString(ProcessHandle.current().pid());
      try (ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
        for (int w = 0; w < 16; w++) {
          String prefix = "p" + run + "-w" + w + "-";
          writers.submit(
              () -> {
                try {
                  for (int i = 0; ; i++) {
                    Resource stored = backend.writeCas(resource(id(prefix + i)));
                    synchronized (out) {
                      out.println("ACK " + stored.getId().getName() + " " + stored.getVersion());
                      out.flush();
                    }
                  }
                } catch (RuntimeException e) {
                  // The parent sees the writer stop acknowledging; say why on stderr.
                  e.printStackTrace();
                  System.exit(1);
                }
              });
        }
      }
    } else {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(backend::isLeader);
      for (Resource r :
          backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 0, "").resources()) {
        out.println("HAS " + r.getId().getName() + " " + r.getVersion());
      }
      out.println("DONE");
      out.flush();
      backend.close();
      System.exit(0);
    }
  }
}
