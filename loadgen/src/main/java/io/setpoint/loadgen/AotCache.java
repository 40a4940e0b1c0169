package io.setpoint.loadgen;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The build's AOT caches (JDK 25+), as the {@code setpoint} launcher hands them to a JVM: {@code
 * setpoint-agent.aot} for agents and benchmarks, {@code setpoint-cli.aot} for the other commands,
 * side by side in {@code cli/target}. A JVM this process starts gets the cache for what it runs when
 * this one was given one: same java, same class path, and the launcher has already decided that
 * the cache applies (JDK 25+, cache newer than the jar, {@code SETPOINT_NO_AOT} unset).
 */
public enum AotCache {
  /** {@code setpoint agent}, {@code bench} and {@code demo}: the server's classes and profiles. */
  AGENT("setpoint-agent.aot"),
  /** Every other command: the client's classes only, so that a short command starts fast. */
  CLI("setpoint-cli.aot");

  private static final String FLAG = "-XX:AOTCache=";

  private final String file;

  AotCache(String file) {
    this.file = file;
  }

  /**
   * The JVM flags that give a new JVM this cache, or none when this JVM runs without one or this
   * cache is not there.
   */
  public List<String> flags() {
    return path().map(p -> List.of(FLAG + p, "-Xlog:aot*=off")).orElse(List.of());
  }

  /** This cache's file, when this JVM was given one of the caches and this one exists beside it. */
  public Optional<Path> path() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(arg -> arg.startsWith(FLAG))
        .reduce((first, last) -> last)
        .map(arg -> Path.of(arg.substring(FLAG.length())).resolveSibling(file))
        .filter(Files::isRegularFile);
  }

  /** Whether {@code jvmArgument} is one of the flags that {@link #flags()} gives. */
  public static boolean isFlag(String jvmArgument) {
    return jvmArgument.startsWith(FLAG) || jvmArgument.startsWith("-Xlog:aot");
  }
}
