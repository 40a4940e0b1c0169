package io.setpoint.bench;

import java.util.List;
import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Takes the value of {@code -agent-arg} as given. Picocli otherwise refuses a value that reads like
 * a cluster of the benchmark's own short options: {@code -agent-arg=-history-mib} starts with
 * {@code -h}.
 */
final class AgentArgument implements IParameterPreprocessor {
  @Override
  @SuppressWarnings("unchecked")
  public boolean preprocess(Stack<String> args, CommandSpec commandSpec, ArgSpec argSpec, Map<String, Object> info) {
    if (args.isEmpty()) {
      throw new ParameterException(commandSpec.commandLine(),
          "Missing value for " + argSpec.paramLabel() + " of option '" + info.get("unresolved") + "'");
    }
    ((List<String>) argSpec.getValue()).add(args.pop());
    return true;
  }
}
