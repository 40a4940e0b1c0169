package io.setpoint.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Loopback ports for the servers the generator starts. */
public final class Ports {
  private Ports() {}

  /**
   * {@code count} distinct ports: {@code base}, {@code base + 1}, ... when {@code base} is
   * positive, else ports that were free on 127.0.0.1 a moment ago (all bound at once, so distinct,
   * then released for the servers to take).
   */
  public static List<Integer> pick(int base, int count) {
    List<Integer> ports = new ArrayList<>();
    if (base > 0) {
      if (base + count - 1 > 65535) {
        throw new IllegalArgumentException("ports " + base + ".." + (base + count - 1) + " exceed 65535");
      }
      for (int i = 0; i < count; i++) {
        ports.add(base + i);
      }
      return ports;
    }
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        held.add(socket);
        ports.add(socket.getLocalPort());
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free loopback ports", e);
    } finally {
      for (ServerSocket socket : held) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // Closing a listening socket we own does not fail in a way we could act on.
        }
      }
    }
  }
}
