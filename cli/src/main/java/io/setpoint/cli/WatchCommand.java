package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code setpoint resource watch TYPE}: prints events until interrupted. */
@Command(name = "watch", description = {
    "Streams the changes to resources of one type until interrupted (Ctrl-C).",
    "First the current resources as UPSERTs and an END_OF_SNAPSHOT, then every change; with -since, only the changes"
        + " after that revision (each event line shows its revision, so a watch stopped can go on where it was)."})
final class WatchCommand extends ResourceCall {
  @Mixin private SelectionOptions selection;

  @Mixin private OutputOption output;

  @Option(names = "-since", paramLabel = "REVISION", defaultValue = "0", description = {
      "Resume after this revision, without a snapshot: the events after it, as the first watch printed them"
          + " (default 0: a snapshot first). A revision the server no longer holds fails with OUT_OF_RANGE."})
  private long since;

  @Override
  int run() {
    if (since < 0) {
      throw new CliException("-since: must be a revision, 0 or more, not " + since);
    }
    try {
      WatchListRequest request = WatchListRequest.newBuilder()
          .setType(type(selection.type)).setTenancy(selection.tenancy.tenancy()).setNamePrefix(selection.prefix)
          .setSinceRevision(since).build();
      Printer printer = new Printer(out(), output.format, this::json, Instant.now());
      if (output.format != Format.table) {
        json(); // learn the types before the first event, not in the middle of the stream
      }
      try (Watch watch = client.watch(request)) {
        while (watch.hasNext()) {
          printer.event(watch.next());
        }
      }
      return 0;
    } catch (SetpointException e) {
      if (e.code() == Status.Code.CANCELLED && Thread.currentThread().isInterrupted()) {
        return 0; // stopped by an interrupt: the normal way a watch ends
      }
      throw e;
    }
  }
}
