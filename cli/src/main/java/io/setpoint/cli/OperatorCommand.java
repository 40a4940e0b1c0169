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

/** {@code setpoint operator}: operating the agents themselves (their cluster's status, their Raft cluster). */
@Command(
    name = "operator",
    description = "Operates agents: their cluster's status and their replicated store's Raft cluster.",
    subcommands = {OperatorStatusCommand.class, OperatorCommand.Raft.class})
final class OperatorCommand {

  /** {@code setpoint operator raft}. */
  @Command(
      name = "raft",
      description = "Lists, adds and removes the Raft members of the agent's store, or moves leadership between them.",
      subcommands = {ListPeers.class, TransferLeader.class, AddPeer.class, RemovePeer.class})
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
      PrintWriter out = spec.commandLine().getOut();
      printPeers(out, peers.getPeersList());
      out.println("as " + peers.getAnsweredBy() + " knows them" + (peers.getPeersList().stream()
          .anyMatch(p -> p.getName().equals(peers.getAnsweredBy()) && p.getLeader())
          ? "" : "; ask the leader for every member's index and last contact"));
      out.flush();
      return 0;
    }
  }

  /** The members as a table: name, address, state, index and last contact. */
  private static void printPeers(PrintWriter out, List<Peer> peers) {
    Table table = new Table(List.of("NODE", "ADDRESS", "STATE", "INDEX", "LAST CONTACT"));
    for (Peer p : peers) {
      String state = p.getUnreachable() ? "unreachable" : p.getLeader() ? "leader" : "follower";
      String lastContact = p.hasLastContact()
          ? (p.getLastContact().getSeconds() * 1000 + p.getLastContact().getNanos() / 1_000_000) + " ms ago" : "-";
      table.row(List.of(p.getName(), p.getAddress(), state, p.hasIndex() ? Long.toString(p.getIndex()) : "-",
          lastContact));
    }
    table.print(out);
  }

  /** What a membership change did, then the members afterwards; the command's exit code. */
  private static int printChange(CommandSpec spec, String done, List<Peer> peers) {
    PrintWriter out = spec.commandLine().getOut();
    out.println(done);
    printPeers(out, peers);
    out.flush();
    return 0;
  }

  /** {@code setpoint operator raft add-peer}: adds a member that waits to be added. */
  @Command(name = "add-peer", description = "Adds a Raft member and waits until the cluster committed it, the leader having"
      + " caught it up (needs operator:write). The member must be running and waiting to be added, as 'setpoint agent"
      + " -join' starts it; -join asks for this itself, so add-peer is for a joining member started without -join's"
      + " access to the API, say with a token of its own.")
  static final class AddPeer implements Callable<Integer> {
    @Spec private CommandSpec spec;
    @Mixin private ClientOptions client;

    @Option(names = "-node", paramLabel = "NAME", required = true, description = "The new member's node name (its -node).")
    private String node;

    @Option(names = "-raft-address", paramLabel = "HOST:PORT", required = true,
        description = "The new member's Raft address, as the other members dial it (its -bind and -raft-port).")
    private String raftAddress;

    @Override
    public Integer call() {
      List<Peer> peers;
      try (SetpointClient c = client.connect(spec.commandLine())) {
        peers = c.addRaftPeer(node, raftAddress);
      }
      return printChange(spec, "added " + node, peers);
    }
  }

  /** {@code setpoint operator raft remove-peer}: removes a member. */
  @Command(name = "remove-peer", description = "Removes a Raft member and waits until the cluster committed it; when it"
      + " leads, leadership moves first (needs operator:write). Stop the removed member's agent afterwards.")
  static final class RemovePeer implements Callable<Integer> {
    @Spec private CommandSpec spec;
    @Mixin private ClientOptions client;

    @Option(names = "-node", paramLabel = "NAME", required = true, description = "The member to remove.")
    private String node;

    @Override
    public Integer call() {
      List<Peer> peers;
      try (SetpointClient c = client.connect(spec.commandLine())) {
        peers = c.removeRaftPeer(node);
      }
      return printChange(spec, "removed " + node, peers);
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
