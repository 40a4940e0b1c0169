package io.setpoint.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Loopback ports for tests that start servers which cannot listen on port 0 themselves. */
public final class FreePorts {
  private FreePorts() {}

  /** A port that was free on the loopback address a moment ago. */
  public static int loopback() {
    return loopback(1).getFirst();
  }

  /**
   * {@code count} distinct ports that were free on the loopback address a moment ago: all bound at
   * once (so distinct), then released for the servers to take.
   */
  public static List<Integer> loopback(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free loopback ports", e);
    } finally {
      for (ServerSocket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // The port is free again either way.
        }
      }
    }
  }
}
