package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.client.SetpointException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import jdk.jfr.FlightRecorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code setpoint} command: {@code setpoint agent -dev} runs a server, {@code setpoint
 * resource read|list|apply|delete|watch} talks to one, {@code setpoint type apply -f x.proto} adds
 * types to it, {@code setpoint acl bootstrap|token create} creates tokens, {@code setpoint controller
 * list|reconcile} shows the agent's controllers and reconciles on demand, {@code setpoint demo
 * controllers} runs the demo's controllers in a process of their own.
 *
 * <p>Exit codes: 0 on success, 1 when the operation failed (a server error, an unreachable
 * server, an unreadable input document), 2 on a usage error. Errors are printed to stderr as
 * {@code Error: <message>}.
 */
@Command(
    name = "setpoint",
    mixinStandardHelpOptions = true,
    scope = CommandLine.ScopeType.INHERIT,
    versionProvider = Main.Version.class,
    description = "A resource-oriented control plane for the JVM.")
public final class Main {
  /** The exit code of a failed operation. */
  public static final int FAILED = 1;
  /** The exit code of a usage error. */
  public static final int USAGE = 2;
  /** {@code setpoint bench}: in the setpoint-bench module, on the class path only where {@code ./setpoint bench} puts it. */
  static final String BENCH_COMMAND = "io.setpoint.bench.BenchCommand";
  private static final String PICOCLI_CLOSURES = "picocli.disable.closures";
  private static final String GRPC_NO_NATIVE_TRANSPORT = "io.grpc.netty.shaded.io.netty.transport.noNative";
  /** The commands that stop what they started in a shutdown hook, so must exit through them. */
  private static final Set<String> WITH_SHUTDOWN_HOOKS = Set.of("agent", "bench", "demo");

  /**
   * The subcommands by name, in the order help lists them. Building a command's model is most of
   * a short command's run time, so a run builds only the one it names (see {@link #commandLine}).
   * The names are spelt out rather than read from each class's {@code @Command}: reading one
   * annotation loads every class it names, every subcommand's subcommands among them, which was a
   * third of {@code --version}'s run (MainTest checks that the names match).
   */
  static final Map<String, Class<?>> SUBCOMMANDS = subcommands(
      "agent", AgentCommand.class, "resource", ResourceCommand.class, "type", TypeCommand.class,
      "acl", AclCommand.class, "operator", OperatorCommand.class, "snapshot", SnapshotCommand.class,
      "bench", benchCommand(), "controller", ControllerCommand.class, "why", WhyCommand.class,
      "demo", DemoCommand.class, "help", CommandLine.HelpCommand.class);

  private final InputStream stdin;

  private Main(InputStream stdin) {
    this.stdin = stdin;
  }

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    boolean withShutdownHooks = args.length > 0 && WITH_SHUTDOWN_HOOKS.contains(args[0]);
    if (!withShutdownHooks) {
      configureClientJvm();
    }
    CommandLine cmd = commandLine(System.in, args);
    int code = cmd.execute(args);
    // A flight recording started with -XX:StartFlightRecording is written by a shutdown hook too.
    if (withShutdownHooks || FlightRecorder.isInitialized()) {
      cmd.getOut().flush();
      cmd.getErr().flush();
      System.exit(code);
    }
    // System.exit asks the platform's logging whether to log the exit, and finding it looks for a
    // logging service in every jar on the class path: a quarter of a short command. The other
    // commands register no shutdown hook, so once their output is flushed there is nothing to run.
    cmd.getOut().flush();
    cmd.getErr().flush();
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(code);
  }

  /**
   * Sets up this JVM for a client command (AotTraining does the same, so that the CLI's AOT cache
   * holds what such a command loads). A command makes one connection: Java's own sockets serve it
   * as well as epoll, whose native library gRPC would first copy out of its jar into a temporary
   * file (a tenth of a second). A value given on the command line wins.
   */
  static void configureClientJvm() {
    System.getProperties().putIfAbsent(GRPC_NO_NATIVE_TRANSPORT, "true");
  }

  /**
   * The command line for {@code args}, reading {@code -f -} documents from {@code stdin}. When the
   * first argument names a subcommand, only that one is built; {@code --version} builds none; help,
   * usage errors and anything else get all of them, so help lists every command and a misspelt one
   * gets suggestions.
   */
  public static CommandLine commandLine(InputStream stdin, String... args) {
    return commandLine(stdin, System.getenv(), args);
  }

  /** {@link #commandLine(InputStream, String...)} with {@code env} as the agent's environment. */
  static CommandLine commandLine(InputStream stdin, Map<String, String> env, String... args) {
    // Picocli otherwise looks for Groovy on the class path, which opens every jar on it to find
    // nothing, on every command. No command of ours is written in Groovy.
    System.getProperties().putIfAbsent(PICOCLI_CLOSURES, "true");
    CommandLine cmd = new CommandLine(new Main(stdin));
    String first = args.length == 0 ? "" : args[0];
    Class<?> named = SUBCOMMANDS.get(first);
    if (named != null && named != CommandLine.HelpCommand.class) {
      cmd.addSubcommand(named);
    } else if (!(args.length == 1 && (first.equals("--version") || first.equals("-V")))) {
      SUBCOMMANDS.values().forEach(cmd::addSubcommand);
    }
    CommandLine agent = cmd.getSubcommands().get("agent");
    if (agent != null) {
      AgentSettings.install(agent, env);
    }
    // Picocli's own writers, given to every subcommand, so that main can flush what any printed.
    cmd.setOut(cmd.getOut());
    cmd.setErr(cmd.getErr());
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    cmd.setExecutionExceptionHandler(Main::onFailure);
    cmd.setParameterExceptionHandler(Main::onUsageError);
    return cmd;
  }

  /** The benchmarks' command when they are on the class path, else one that says where they are. */
  private static Class<?> benchCommand() {
    try {
      return Class.forName(BENCH_COMMAND, false, Main.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return BenchUnavailable.class;
    }
  }

  private static Map<String, Class<?>> subcommands(Object... nameThenClass) {
    Map<String, Class<?>> byName = new LinkedHashMap<>();
    for (int i = 0; i < nameThenClass.length; i += 2) {
      byName.put((String) nameThenClass[i], (Class<?>) nameThenClass[i + 1]);
    }
    return Collections.unmodifiableMap(byName);
  }

  InputStream stdin() {
    return stdin;
  }

  private static int onFailure(Exception failure, CommandLine cmd, ParseResult parsed) {
    PrintWriter err = cmd.getErr();
    if (failure instanceof SetpointException e) {
      err.println("Error: " + describe(e));
    } else if (failure instanceof CliException e) {
      err.println("Error: " + e.getMessage());
    } else {
      err.println("Error: " + failure);
    }
    err.flush();
    return FAILED;
  }

  private static int onUsageError(ParameterException failure, String[] args) {
    CommandLine cmd = failure.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("Error: " + failure.getMessage() + AgentSettings.origin(failure));
    UnmatchedArgumentException.printSuggestions(failure, err);
    CommandLine.Help help = cmd.getHelp();
    err.print(help.synopsisHeading() + help.synopsis(help.synopsisHeadingLength()));
    err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " -h' for help.");
    err.flush();
    return USAGE;
  }

  /**
   * The server's message, with any field violation it does not already spell out, and a hint
   * when no server answered.
   */
  static String describe(SetpointException e) {
    StringBuilder out = new StringBuilder(e.description());
    if (e.code() == Status.Code.UNAVAILABLE && e.description().startsWith("cannot reach")) {
      out.append(System.lineSeparator()).append(unreachableHint(e.description()));
    }
    for (SetpointException.FieldViolation v : e.violations()) {
      if (!e.description().contains(v.toString())) {
        out.append(System.lineSeparator()).append("  ").append(v);
      }
    }
    return out.toString();
  }

  /** What to try when no agent answered; TLS failures get TLS advice. */
  private static String unreachableHint(String description) {
    if (description.contains("CERTIFICATE_REQUIRED") || description.contains("certificate_required")) {
      return "The agent requires a client certificate: give -client-cert and -client-key (or SETPOINT_CLIENT_CERT and SETPOINT_CLIENT_KEY).";
    }
    if (description.contains("certification path") || description.contains("BAD_CERTIFICATE")
        || description.contains("bad_certificate") || description.contains("UNKNOWN_CA")) {
      return "A certificate was not trusted: check -ca-file (the CA that signed the agent's certificate) and,"
          + " for mutual TLS, that the agent's -tls-ca signed -client-cert.";
    }
    return "Is an agent running there? Start one with 'setpoint agent -dev', or point -address (or SETPOINT_ADDRESS) at one.";
  }

  /** The version from the jar's manifest. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Main.class.getPackage().getImplementationVersion();
      return new String[] {"setpoint " + (version == null ? "(development build)" : version)};
    }
  }
}
