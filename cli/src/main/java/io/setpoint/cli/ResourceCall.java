package io.setpoint.cli;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.TypeInfo;
import io.setpoint.client.ResourceJson;
import io.setpoint.client.SetpointClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A resource command: connects to the agent ({@code -address}, {@code -token}), runs, and closes
 * the connection. Knows the server's types (fetched once, on first need).
 */
abstract class ResourceCall implements Callable<Integer> {
  static final String TYPE_HELP = "group.version.Kind, e.g. demo.v2.Artist (or just the kind, e.g. Artist).";
  static final String NAME_HELP = "The resource's name.";
  static final String PREFIX_HELP = "Only names that start with PREFIX.";
  @Spec CommandSpec spec;

  @Mixin private ClientOptions clientOptions;

  SetpointClient client;
  private ResourceJson json;

  @Override
  public final Integer call() throws Exception {
    try (SetpointClient connected = clientOptions.connect(spec.commandLine())) {
      client = connected;
      return run();
    }
  }

  /** The command's work; returns the exit code. */
  abstract int run() throws Exception;

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** The server's types and the JSON form of their resources. */
  ResourceJson json() {
    if (json == null) {
      json = ResourceJson.of(client.types());
    }
    return json;
  }

  /**
   * The type a TYPE argument names: {@code group.version.Kind}, or just a kind (case-insensitive)
   * when the server serves exactly one type of that kind.
   */
  Type type(String text) {
    if (text.contains(".")) {
      try {
        return Types.parse(text);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    List<Type> matches = json().types().stream()
        .map(TypeInfo::getType)
        .filter(t -> t.getKind().equalsIgnoreCase(text))
        .toList();
    if (matches.size() == 1) {
      return matches.get(0);
    }
    String known = json().types().stream().map(t -> Types.format(t.getType())).sorted().collect(Collectors.joining(", "));
    throw new CliException(matches.isEmpty()
        ? "unknown type " + text + "; the server serves " + known
        : "type " + text + " is ambiguous; write one of " + matches.stream().map(Types::format).collect(Collectors.joining(", ")));
  }
}
