package io.setpoint.cli;

import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.client.SetpointClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code setpoint operator}: operating the agents themselves (today: their Raft cluster). */
@Command(
    name = "operator",
    description = "Operates agents: their replicated store's Raft cluster.",
    subcommands = {OperatorCommand.Raft.class})
final class OperatorCommand {

  /** {@code setpoint operator raft}. */
  @Command(
      name = "raft",
      description = "Lists the Raft members of the agent's store, or moves leadership between them.",
      subcommands = {ListPeers.class, TransferLeader.class})
  static final class Raft {}

  /** {@code setpoint operator raft list-peers}: a table of members. */
  @Command(name = "list-peers", description = "Lists the Raft members: which one leads, the last log index each is"
      + " known to hold, when the member asked last heard from it, and which are unreachable (needs operator:read).")
  static final class ListPeers implements Callable<Integer> {
    @Spec private CommandSpec spec;
    @Mixin private ClientOptions client;

    @Override
    public Integer call() {
      ListPeersResponse peers;
      try (SetpointClient c = client.connect(spec.commandLine())) {
        peers = c.raftPeers();
      }
      Table table = new Table(List.of("NODE", "ADDRESS", "STATE", "INDEX", "LAST CONTACT"));
      for (Peer p : peers.getPeersList()) {
        String state = p.getUnreachable() ? "unreachable" : p.getLeader() ? "leader" : "follower";
        String lastContact = p.hasLastContact()
            ? (p.getLastContact().getSeconds() * 1000 + p.getLastContact().getNanos() / 1_000_000) + " ms ago" : "-";
        table.row(List.of(p.getName(), p.getAddress(), state, p.hasIndex() ? Long.toString(p.getIndex()) : "-",
            lastContact));
      }
      PrintWriter out = spec.commandLine().getOut();
      table.print(out);
      out.println("as " + peers.getAnsweredBy() + " knows them" + (peers.getPeersList().stream()
          .anyMatch(p -> p.getName().equals(peers.getAnsweredBy()) && p.getLeader())
          ? "" : "; ask the leader for every member's index and last contact"));
      out.flush();
      return 0;
    }
  }

  /** {@code setpoint operator raft transfer-leader}: moves leadership and waits for it. */
  @Command(name = "transfer-leader",
      description = "Moves Raft leadership to another member and waits until it leads (needs operator:write).")
  static final class TransferLeader implements Callable<Integer> {
    @Spec private CommandSpec spec;
    @Mixin private ClientOptions client;

    @Option(names = "-to", paramLabel = "NODE", defaultValue = "",
        description = "The member to lead (default: any member but the current leader).")
    private String to;

    @Override
    public Integer call() {
      String leader;
      try (SetpointClient c = client.connect(spec.commandLine())) {
        leader = c.transferRaftLeader(to);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println("leader: " + leader);
      out.flush();
      return 0;
    }
  }
}
