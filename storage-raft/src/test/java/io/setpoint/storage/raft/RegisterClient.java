package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.text;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.conformance.Fixtures;
import io.setpoint.testkit.KeyHistory;
import io.setpoint.testkit.KeyHistory.Result;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A client of a register for the linearizability tests of a changing cluster: it reads the
 * register strongly and swaps it to a value of its own, on the member {@code pick} gives each
 * round, recording every call in a {@link KeyHistory}.
 */
final class RegisterClient {
  private RegisterClient() {}

  /** Runs until {@code running} is false; returns the swaps that took effect. */
  static int run(String client, ID register, Supplier<RaftBackend> pick, KeyHistory history, AtomicBoolean running) {
    int succeeded = 0;
    for (int seq = 0; running.get(); seq++) {
      RaftBackend member = pick.get();
      if (member == null) {
        continue; // stopped right now
      }
      long readCall = System.nanoTime();
      Resource current;
      try {
        current = member.read(Consistency.STRONG, register);
      } catch (StorageException e) {
        if (e.reason() == Reason.NOT_FOUND) {
          history.read(readCall, System.nanoTime(), null);
          current = null;
        } else {
          continue; // a failed read has no effect; it is left out
        }
      }
      String expected = current == null ? null : text(current);
      if (current != null) {
        history.read(readCall, System.nanoTime(), expected);
      }
      String value = client + "-" + seq;
      Resource next = current == null
          ? resource(register).toBuilder().setData(Fixtures.data(value)).build()
          : changed(current, value);
      long call = System.nanoTime();
      try {
        member.writeCas(next);
        history.cas(call, System.nanoTime(), Result.OK, expected, value);
        succeeded++;
      } catch (StorageException e) {
        Result result =
            e.reason() == Reason.CAS_FAILURE || e.reason() == Reason.WRONG_UID ? Result.FAILED : Result.UNKNOWN;
        history.cas(call, System.nanoTime(), result, expected, value);
      }
    }
    return succeeded;
  }
}
