package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.data;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.text;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One member of a Raft cluster whose members are JVMs of their own, for tests that kill members
 * with SIGKILL. Arguments: {@code nodeName dataDir raftPort peers}, where {@code peers} is {@code
 * name=host:port,...} (this member included). It starts a {@link RaftBackend}, opens a control
 * port on the loopback interface, prints {@code READY controlPort} on stdout and serves one request
 * per line on each connection (a virtual thread each), answering one line:
 *
 * <ul>
 *   <li>{@code READ key}: a strong read; {@code OK version value}, {@code NOTFOUND} or {@code ERR
 *       reason message}
 *   <li>{@code CAS key version value}: a write on {@code version} ({@code -}: create); {@code OK
 *       version}, {@code CONFLICT} (the register did not hold {@code version}) or {@code ERR reason
 *       message} ({@code ERR UNAVAILABLE}: the write may or may not take effect)
 *   <li>{@code LEADER}: {@code OK isLeader leaderName} ({@code -}: no leader known)
 *   <li>{@code REVISION}: {@code OK revision}, the store revision this member has applied
 * </ul>
 *
 * <p>Keys name {@link io.setpoint.storage.conformance.Fixtures#WIDGET} resources with a uid fixed
 * by the key; values are the text data of the resource and must not hold spaces. The member exits
 * when its stdin closes, so it does not outlive a test JVM that died. Logs go to stderr.
 */
final class ClusterMemberProcess {
  private ClusterMemberProcess() {}

  static final RaftConfig.Tuning TUNING = TestCluster.FAST;

  public static void main(String[] args) throws Exception {
    String name = args[0];
    Path dataDir = Path.of(args[1]);
    int raftPort = Integer.parseInt(args[2]);
    Map<String, String> peers = new LinkedHashMap<>();
    for (String peer : args[3].split(",")) {
      int eq = peer.indexOf('=');
      peers.put(peer.substring(0, eq), peer.substring(eq + 1));
    }
    RaftBackend backend =
        RaftBackend.start(new RaftConfig(name, dataDir, raftPort, peers, Limits.DEFAULT, TUNING));

    // The parent holds our stdin open while it lives; when it goes, so do we.
    Thread.ofPlatform()
        .daemon()
        .name("stdin-watch")
        .start(
            () -> {
              try {
                while (System.in.read() != -1) {
                  // Nothing is sent; only the end matters.
                }
              } catch (IOException ignored) {
                // Treated as the end.
              }
              Runtime.getRuntime().halt(0);
            });

    try (ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      System.out.println("READY " + server.getLocalPort());
      System.out.flush();
      while (true) {
        Socket socket = server.accept();
        Thread.ofVirtual().name("control-" + socket.getPort()).start(() -> serve(socket, backend));
      }
    }
  }

  private static void serve(Socket socket, RaftBackend backend) {
    try (socket;
        BufferedReader in =
            new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        Writer out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
      socket.setTcpNoDelay(true);
      String line;
      while ((line = in.readLine()) != null) {
        out.write(answer(line, backend).replace('\n', ' ').replace('\r', ' '));
        out.write('\n');
        out.flush();
      }
    } catch (IOException e) {
      // The client went away (or gave up waiting); nothing to answer.
    }
  }

  private static String answer(String request, RaftBackend backend) {
    String[] parts = request.split(" ");
    try {
      return switch (parts[0]) {
        case "READ" -> {
          Resource r = backend.read(Consistency.STRONG, register(parts[1]));
          yield "OK " + r.getVersion() + " " + text(r);
        }
        case "CAS" -> {
          String version = parts[2].equals("-") ? "" : parts[2];
          Resource r =
              Resource.newBuilder()
                  .setId(register(parts[1]))
                  .setVersion(version)
                  .setData(data(parts[3]))
                  .build();
          yield "OK " + backend.writeCas(r).getVersion();
        }
        case "LEADER" -> "OK " + backend.isLeader() + " " + backend.leader().orElse("-");
        case "REVISION" -> "OK " + backend.revision();
        default -> "ERR BAD_REQUEST " + request;
      };
    } catch (StorageException e) {
      if (e.reason() == Reason.NOT_FOUND && parts[0].equals("READ")) {
        return "NOTFOUND";
      }
      if (e.reason() == Reason.CAS_FAILURE && parts[0].equals("CAS")) {
        return "CONFLICT";
      }
      return "ERR " + e.reason() + " " + e.getMessage();
    } catch (RuntimeException e) {
      e.printStackTrace();
      return "ERR INTERNAL " + e;
    }
  }

  /** The register {@code key}: a widget whose uid is fixed by its name, so every write agrees. */
  private static ID register(String key) {
    String uid = String.format("01TESTREGISTER%012d", Math.floorMod(key.hashCode(), 1_000_000));
    return id(key).toBuilder().setUid(uid).build();
  }
}
