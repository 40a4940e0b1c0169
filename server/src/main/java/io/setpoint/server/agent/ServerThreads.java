package io.setpoint.server.agent;

import com.linecorp.armeria.common.Flags;
import com.linecorp.armeria.common.util.EventLoopGroups;
import com.linecorp.armeria.server.ServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The server's I/O threads: the event loops that serve its connections and the one that accepts
 * them on each port. They are the agent's own, so that stopping ends them as soon as every
 * connection is closed. Armeria ends the acceptor only once its stop completes, which waits a
 * second for each HTTP/2 connection open when the port closed; and a JVM exiting while a thread
 * waits in native code (epoll) gives it 300 ms to come back first, which was most of a stop.
 */
final class ServerThreads {
  private final EventLoopGroup workers = EventLoopGroups.newEventLoopGroup(Flags.numCommonWorkers(), "setpoint-io", true);
  private final List<EventLoopGroup> acceptors = new CopyOnWriteArrayList<>();

  /** Makes {@code server} run on these threads. */
  ServerBuilder configure(ServerBuilder server) {
    return server
        .workerGroup(workers, false)
        // Not daemons, as Armeria's own: an agent's main thread may wait on something else.
        .bossGroupFactory(name -> {
          EventLoopGroup acceptor = EventLoopGroups.newEventLoopGroup(1, name, false);
          acceptors.add(acceptor);
          return acceptor;
        });
  }

  /**
   * Ends the acceptor threads, once the ports are closed. Armeria would end them too, later, but
   * with Netty's two-second quiet period; the first to ask decides how.
   */
  void stopAccepting() {
    for (EventLoopGroup acceptor : acceptors) {
      acceptor.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
    }
  }

  /** Ends every thread at once, waiting up to {@code timeout}; false if some did not end in time. */
  boolean shutdown(Duration timeout) throws InterruptedException {
    List<Future<?>> ended = new ArrayList<>();
    ended.add(workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS));
    for (EventLoopGroup acceptor : acceptors) {
      ended.add(acceptor.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS));
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Future<?> future : ended) {
      if (!future.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return false;
      }
    }
    return true;
  }
}
