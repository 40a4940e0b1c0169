package io.setpoint.loadgen.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The members' Raft network, as TCP proxies of our own: each member is dialled at its proxy, which
 * forwards to the port it listens on. A proxy tells which member a connection comes from (the
 * {@link SocketOwners} of its source port), so that the link between two members can be cut in
 * both directions: bytes on a cut link are held, not forwarded, as a network dropping packets
 * would, and flow again when it heals, as TCP's retransmissions would deliver them. Chosen over
 * iptables because it needs neither root nor a Unix user per member, and cuts one link at a time.
 */
final class Network implements AutoCloseable {
  private static final int BUFFER = 64 << 10;

  /** An unordered pair of members. */
  private record Link(int a, int b) {
    static Link of(int x, int y) {
      return new Link(Math.min(x, y), Math.max(x, y));
    }
  }

  private final List<ServerSocket> fronts = new ArrayList<>();
  private final Set<Link> cut = new HashSet<>();
  private final Set<Socket> open = new HashSet<>();
  private final SocketOwners owners;
  private boolean closed;

  /** A network over which {@code pids} says which process is which member (by index). */
  Network(Supplier<List<Long>> pids) {
    this.owners = new SocketOwners(pids);
  }

  /**
   * Starts a proxy for member {@code member} that forwards to {@code raftPort}, and says the port
   * it listens on.
   */
  synchronized int front(int member, int raftPort) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      fronts.add(server);
      Thread.ofVirtual().name("chaos-proxy-" + Members.name(member)).start(() -> accept(member, server, raftPort));
      return server.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen for member " + Members.name(member) + "'s proxy", e);
    }
  }

  /** Cuts every link between a member of {@code side} and one outside it. */
  synchronized void partition(Set<Integer> side, int members) {
    for (int a : side) {
      for (int b = 0; b < members; b++) {
        if (!side.contains(b)) {
          cut.add(Link.of(a, b));
        }
      }
    }
  }

  /** Heals every link. */
  synchronized void heal() {
    cut.clear();
    notifyAll();
  }

  private void accept(int member, ServerSocket server, int raftPort) {
    while (!server.isClosed()) {
      try {
        Socket in = server.accept();
        Thread.ofVirtual().start(() -> connect(member, in, raftPort));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  /**
   * A connection from a member to member {@code to}'s proxy. Which member dialled is looked up
   * when a link is first cut, not at accept: connections opened while the members start, before
   * their processes are known, last the whole run.
   */
  private final class Connection {
    final int to;
    final int sourcePort;
    final int frontPort;
    volatile int from = -1;

    Connection(int to, Socket in) {
      this.to = to;
      this.sourcePort = in.getPort();
      this.frontPort = in.getLocalPort();
    }

    /** Blocks while its link is cut; false once the network is closed. */
    boolean awaitUp() throws InterruptedException {
      if (from < 0 && anyCut()) {
        from = owners.member(sourcePort, frontPort);
      }
      synchronized (Network.this) {
        while (!closed && from >= 0 && cut.contains(Link.of(from, to))) {
          Network.this.wait();
        }
        return !closed;
      }
    }
  }

  private void connect(int to, Socket in, int raftPort) {
    Connection connection = new Connection(to, in);
    try (in; Socket out = new Socket()) {
      if (!track(in) || !track(out)) {
        return;
      }
      try {
        out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), raftPort));
        Thread back = Thread.ofVirtual().start(() -> pump(out, in, connection));
        pump(in, out, connection);
        back.join();
      } finally {
        untrack(out);
      }
    } catch (IOException | InterruptedException e) {
      // The member on either side went away; the connection ends as it would without us.
    } finally {
      untrack(in);
    }
  }

  /** Copies {@code in} to {@code out} while the link is up, holding the bytes while it is cut. */
  private void pump(Socket in, Socket out, Connection connection) {
    byte[] buffer = new byte[BUFFER];
    try (InputStream source = in.getInputStream(); OutputStream sink = out.getOutputStream()) {
      for (int n; (n = source.read(buffer)) >= 0; ) {
        if (!connection.awaitUp()) {
          return;
        }
        sink.write(buffer, 0, n);
      }
    } catch (IOException | InterruptedException e) {
      // One side closed: close the other, as the peer would see it.
    } finally {
      closeQuietly(in);
      closeQuietly(out);
    }
  }

  private synchronized boolean anyCut() {
    return !cut.isEmpty();
  }

  private synchronized boolean track(Socket socket) {
    if (closed) {
      return false;
    }
    open.add(socket);
    return true;
  }

  private synchronized void untrack(Socket socket) {
    open.remove(socket);
  }

  /** Stops every proxy and drops their connections. */
  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
    fronts.forEach(Network::closeQuietly);
    open.forEach(Network::closeQuietly);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Closing what is already broken fails in ways nothing can act on.
    }
  }
}
