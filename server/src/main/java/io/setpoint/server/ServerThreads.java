package io.setpoint.server;

import com.linecorp.armeria.common.Flags;
import com.linecorp.armeria.common.util.EventLoopGroups;
import com.linecorp.armeria.server.ServerBuilder;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The server's I/O threads: the event loops that serve its connections and the one that accepts
 * them on each port. They are the agent's own, so that stopping ends them as soon as their work is
 * done. Armeria ends an acceptor only once its stop completes, which waits a second for each HTTP/2
 * connection open when the port closed, and then with Netty's two-second quiet period; a JVM
 * exiting while such a thread waits in native code (epoll) gave it 300 ms to come back first.
 */
final class ServerThreads {
  private final EventLoopGroup workers = EventLoopGroups.newEventLoopGroup(Flags.numCommonWorkers(), "setpoint-io", true);
  private final List<EventLoopGroup> acceptors = new CopyOnWriteArrayList<>();

  /** Makes {@code server} run on these threads. */
  ServerBuilder configure(ServerBuilder server) {
    return server
        .workerGroup(workers, false)
        // Daemons, unlike Armeria's own: an idle acceptor that Armeria ends slowly keeps neither a
        // stop nor the JVM waiting.
        .bossGroupFactory(name -> {
          EventLoopGroup acceptor = EventLoopGroups.newEventLoopGroup(1, name, true);
          acceptors.add(acceptor);
          return acceptor;
        });
  }

  /**
   * Ends the acceptor threads, once the ports are closed. Armeria ends them too, but later and with
   * a quiet period; whichever asks first decides how.
   */
  void stopAccepting() {
    for (EventLoopGroup acceptor : acceptors) {
      acceptor.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Ends every thread, the workers at once, and waits up to {@code timeout} for the workers; false
   * if they did not end in time.
   */
  boolean shutdown(Duration timeout) throws InterruptedException {
    stopAccepting();
    return workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
