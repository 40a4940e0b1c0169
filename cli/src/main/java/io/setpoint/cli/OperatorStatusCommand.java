package io.setpoint.cli;

import io.setpoint.api.operator.v1.ClusterStatus;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.client.SetpointClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code setpoint operator status}: what the UI's cluster page shows, as text. */
@Command(name = "status", description = "Shows the agent's view of its cluster, as the web UI's cluster page does: members"
    + " with their index, lag and last contact, the leader, term, commit and applied index, the disk space left for the"
    + " data directory, and whether the agent is ready (what /readyz answers). Needs operator:read.")
final class OperatorStatusCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;
  @Mixin private ClientOptions client;

  @Override
  public Integer call() {
    ClusterStatus status;
    try (SetpointClient c = client.connect(spec.commandLine())) {
      status = c.clusterStatus();
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println("answered by:   " + status.getAnsweredBy()
        + (status.getReplicated() ? "" : " (in-memory store: one member, not replicated)"));
    out.println("leader:        " + (status.getLeader().isEmpty() ? "none known" : status.getLeader()));
    if (status.getReplicated()) {
      out.println("term:          " + status.getTerm());
      out.println("commit index:  " + status.getCommitIndex());
      out.println("applied index: " + status.getAppliedIndex());
    }
    out.println("disk:          " + (status.getDataDir().isEmpty() ? "no data directory"
        : status.hasDiskFreeBytes() ? mebibytes(status.getDiskFreeBytes()) + " free of "
            + mebibytes(status.getDiskTotalBytes()) + " (" + status.getDataDir() + ")" : "unknown (" + status.getDataDir() + ")"));
    out.println("ready:         " + (status.getReady() ? "yes" : "no: " + status.getReadiness()));
    Table table = new Table(List.of("NODE", "ADDRESS", "STATE", "INDEX", "LAG", "LAST CONTACT"));
    for (Peer p : status.getPeersList()) {
      String state = p.getUnreachable() ? "unreachable" : p.getLeader() ? "leader" : "follower";
      String lastContact = p.getName().equals(status.getAnsweredBy()) ? "itself" : p.hasLastContact()
          ? (p.getLastContact().getSeconds() * 1000 + p.getLastContact().getNanos() / 1_000_000) + " ms ago" : "-";
      table.row(List.of(p.getName(), p.getAddress().isEmpty() ? "-" : p.getAddress(), state,
          p.hasIndex() ? Long.toString(p.getIndex()) : "-", p.hasLag() ? Long.toString(p.getLag()) : "-", lastContact));
    }
    table.print(out);
    out.flush();
    return 0;
  }

  private static String mebibytes(long bytes) {
    return (bytes >> 20) + " MiB";
  }
}
