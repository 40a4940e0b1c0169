package io.setpoint.server.agent;

import com.linecorp.armeria.server.grpc.HttpJsonTranscodingOptions;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the slowest class initialiser an agent's start reaches on a thread of its own, so that it
 * uses the second core while the agent opens its store and registers its types. That initialiser
 * is Armeria's default HTTP/JSON transcoding options, made by every {@code GrpcService.builder()}:
 * its JSON error handler generates marshallers for google.rpc's error details with ByteBuddy,
 * about a third of the CPU of an {@code agent -dev} start. The agent serves binary gRPC only, but
 * cannot build its gRPC service without it.
 */
final class EarlyClassInit {
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private EarlyClassInit() {}

  /** Starts the initialiser, once per JVM; the agent's own use of it waits for it to finish. */
  static void start() {
    if (STARTED.compareAndSet(false, true)) {
      Thread.ofPlatform().daemon().name("setpoint-early-class-init").start(EarlyClassInit::run);
    }
  }

  private static void run() {
    try {
      HttpJsonTranscodingOptions.of();
    } catch (Throwable e) {
      // The agent's own GrpcService.builder() then fails with this error as its cause.
    }
  }
}
