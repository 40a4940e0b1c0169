package io.setpoint.testing.election;

import io.grpc.Status.Code;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Controller;
import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Result;
import io.setpoint.demo.DemoTypes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The process {@link ElectionProcessesTest} starts three of: a manager under leader election whose
 * one SINGLETON controller reconciles one record label over and over. Each reconcile writes a
 * "began" and a "done" status with its fenced client, and prints one line to stdout:
 * {@code stored HOLDER EPOCH BEGAN DONE} with the store revisions of the two writes, or {@code
 * refused HOLDER EPOCH} when the server fenced a write off. A line {@code write} on stdin makes it
 * write once more with the client its controller was last given, and print {@code late stored} or
 * {@code late refused CODE}: what a process resumed after a pause would do.
 *
 * <p>Arguments: {@code ADDRESS HOLDER}.
 */
public final class IntervalRecorder {
  static final String ELECTION = "recorder";
  static final String STATUS_KEY = "election.test/recorder";
  static final Duration LEASE = Duration.ofSeconds(3);

  private IntervalRecorder() {}

  public static void main(String[] args) throws Exception {
    String address = args[0];
    String holder = args[1];
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    AtomicReference<SetpointClient> lastWriter = new AtomicReference<>();
    AtomicReference<ID> lastId = new AtomicReference<>();
    SetpointClient client = SetpointClient.builder().address(address).deadline(Duration.ofSeconds(5)).build();
    Controller recorder = Controller.forType(DemoTypes.RECORD_LABEL).named("recorder").reconciler((ctx, tools, req) -> {
      SetpointClient writer = tools.client();
      lastWriter.set(writer);
      Fence fence = writer.fence();
      Resource current = writer.readConsistent(req.id());
      lastId.set(current.getId());
      try {
        long began = revision(writer.writeStatus(current.getId(), STATUS_KEY, status(holder, "Began", fence)));
        for (int i = 0; i < 5; i++) {
          writer.readConsistent(req.id()); // the reconcile's work: time in which a pause can land
        }
        long done = revision(writer.writeStatus(current.getId(), STATUS_KEY, status(holder, "Done", fence)));
        out.println("stored " + holder + " " + fence.getEpoch() + " " + began + " " + done);
      } catch (SetpointException e) {
        if (e.code() == Code.FAILED_PRECONDITION) {
          out.println("refused " + holder + " " + fence.getEpoch());
        }
        throw e;
      }
      return Result.requeueAfter(Duration.ofMillis(20));
    });
    Manager manager = Manager.builder().client(client)
        .leaderElection(LeaseElection.named(ELECTION).holder(holder)
            .leaseDuration(LEASE).renewDeadline(Duration.ofSeconds(2)).retryPeriod(Duration.ofMillis(300)))
        .build();
    manager.register(recorder);
    manager.start();
    out.println("started " + holder);

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("write") && lastWriter.get() != null) {
        SetpointClient writer = lastWriter.get();
        try {
          writer.writeStatus(lastId.get(), STATUS_KEY, status(holder, "Late", writer.fence()));
          out.println("late stored");
        } catch (SetpointException e) {
          out.println("late refused " + e.code());
        }
      }
    }
    manager.close();
    client.close();
  }

  private static Status status(String holder, String step, Fence fence) {
    return Status.newBuilder()
        .addConditions(Conditions.isTrue("Recorded", step, holder + " at epoch " + fence.getEpoch()))
        .build();
  }

  private static long revision(Resource stored) {
    return Long.parseLong(stored.getVersion());
  }
}
