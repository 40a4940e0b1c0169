package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Result;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A reconcile that follows its own write at once sees that write, even while the cache's watch
 * lags behind the store: the manager waits for the cache to catch up with what the previous
 * reconcile of the key wrote. The watch here is held back by a gate the test controls.
 */
class ReadYourWritesTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String KEY = "ryw.test/count";

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  @Test
  void theNextReconcileOfAKeySeesWhatThePreviousOneWroteEvenWhenTheWatchLags() throws Exception {
    WatchGate gate = new WatchGate();
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", setpoint.agent().port()).usePlaintext().build();
    List<Integer> seen = new CopyOnWriteArrayList<>();
    Controller counter = Controller.forType(DemoTypes.RECORD_LABEL).named("counter").reconciler((ctx, tools, req) -> {
      Resource cached = tools.cache().get(req.id()).orElseThrow();
      int count = count(cached);
      seen.add(count);
      if (count >= 2) {
        return Result.done();
      }
      if (count == 0) {
        gate.close(); // from now on the cache hears of no change until the test opens the gate
      }
      tools.client().writeStatus(cached.getId(), KEY, count(count + 1));
      return Result.requeueNow();
    });
    try (SetpointClient client = SetpointClient.over(new GatedChannel(channel, gate), "gated");
        Manager manager = Manager.builder().client(client).build()) {
      manager.register(counter);
      manager.start();
      ID label = setpoint.client().write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "counted"))
          .setData(Any.pack(RecordLabel.newBuilder().setName("Counted").build())).build()).getId();

      await().atMost(WAIT).until(() -> count(setpoint.client().read(label)) == 1);
      gate.open();
      await().atMost(WAIT).until(() -> seen.contains(2));

      // Each reconcile read the count the previous one wrote; a stale cache would have shown 0 again.
      // (The event of the last write may bring one more reconcile, which reads 2 too.)
      assertThat(seen.subList(0, 3)).as("the counts the reconciles read from the cache").containsExactly(0, 1, 2);
      assertThat(seen).as("the counts the reconciles read from the cache").isSorted().endsWith(2);
    }
  }

  private static int count(Resource resource) {
    Status status = resource.getStatusMap().get(KEY);
    return status == null ? 0 : Conditions.find(status, "Counted").map(c -> Integer.parseInt(c.getMessage())).orElse(0);
  }

  private static Status count(int n) {
    return Status.newBuilder().addConditions(Conditions.isTrue("Counted", "Counted", Integer.toString(n))).build();
  }

  /**
   * Holds back the messages of every watch while closed, and lets them through in order once open.
   * Deliveries run under its lock, so none overtakes a held one.
   */
  private static final class WatchGate {
    private boolean closed;
    private final List<Runnable> held = new ArrayList<>();

    synchronized void close() {
      closed = true;
    }

    synchronized void open() {
      closed = false;
      held.forEach(Runnable::run);
      held.clear();
    }

    synchronized void deliver(Runnable delivery) {
      if (closed) {
        held.add(delivery);
      } else {
        delivery.run();
      }
    }
  }

  /** A channel whose WatchList calls deliver their messages through a {@link WatchGate}. */
  private static final class GatedChannel extends ManagedChannel {
    private final ManagedChannel delegate;
    private final Channel gated;

    GatedChannel(ManagedChannel delegate, WatchGate gate) {
      this.delegate = delegate;
      this.gated = ClientInterceptors.intercept(delegate, new ClientInterceptor() {
        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
          ClientCall<Q, A> call = next.newCall(method, options);
          if (!method.getBareMethodName().equals("WatchList")) {
            return call;
          }
          return new SimpleForwardingClientCall<>(call) {
            @Override
            public void start(Listener<A> listener, Metadata headers) {
              super.start(new SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onMessage(A message) {
                  gate.deliver(() -> super.onMessage(message));
                }
              }, headers);
            }
          };
        }
      });
    }

    @Override
    public <Q, A> ClientCall<Q, A> newCall(MethodDescriptor<Q, A> method, CallOptions options) {
      return gated.newCall(method, options);
    }

    @Override
    public String authority() {
      return delegate.authority();
    }

    @Override
    public ManagedChannel shutdown() {
      delegate.shutdown();
      return this;
    }

    @Override
    public boolean isShutdown() {
      return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return delegate.isTerminated();
    }

    @Override
    public ManagedChannel shutdownNow() {
      delegate.shutdownNow();
      return this;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return delegate.awaitTermination(timeout, unit);
    }
  }
}
