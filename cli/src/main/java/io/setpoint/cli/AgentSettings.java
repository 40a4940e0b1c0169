package io.setpoint.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Where {@code setpoint agent}'s settings come from when a flag does not give them: a {@code
 * SETPOINT_*} environment variable ({@code -data-dir} is {@code SETPOINT_DATA_DIR}), else the
 * {@code -config} file (YAML keyed by the flag names without the dash), else the flag's default.
 * Flags win over the environment and the environment over the file, as etcd's do. A file key that
 * names no flag is refused by name. It remembers where each value came from, for {@code
 * -print-config}.
 */
final class AgentSettings implements IDefaultValueProvider {
  static final String ENV_PREFIX = "SETPOINT_";
  static final String CONFIG = "config";
  /** Options that are not settings: they say what to do with the settings. */
  private static final Set<String> NOT_SETTINGS = Set.of(CONFIG, "print-config", "help", "version");
  /** Settings whose values -print-config does not show. */
  private static final Set<String> SECRETS = Set.of("join-token");

  private final CommandSpec spec;
  private final Map<String, String> env;
  private final Map<String, String> sources = new HashMap<>();
  private Path filePath;
  private Map<String, String> file;

  private AgentSettings(CommandSpec spec, Map<String, String> env) {
    this.spec = spec;
    this.env = env;
  }

  /** Gives the agent command {@code agent} its settings from {@code env} and its -config file. */
  static void install(CommandLine agent, Map<String, String> env) {
    agent.setDefaultValueProvider(new AgentSettings(agent.getCommandSpec(), Map.copyOf(env)));
  }

  /** The settings of {@code agent}'s last parse, with where each came from. */
  static AgentSettings of(CommandSpec agent) {
    return (AgentSettings) agent.defaultValueProvider();
  }

  static String envName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec option)) {
      return null;
    }
    String key = key(option);
    if (NOT_SETTINGS.contains(key) && !key.equals(CONFIG)) {
      return null;
    }
    String variable = envName(key);
    String fromEnv = env.get(variable);
    if (fromEnv != null) {
      sources.put(key, "environment " + variable);
      return fromEnv;
    }
    if (key.equals(CONFIG)) {
      return null;
    }
    String fromFile = file().get(key);
    if (fromFile != null) {
      sources.put(key, "file " + filePath);
    }
    return fromFile;
  }

  /** Where the value of {@code key} came from: a flag, the environment, the file or the default. */
  String source(String key) {
    OptionSpec option = spec.findOption("-" + key);
    if (spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption(option)) {
      return "flag -" + key;
    }
    if (sources.containsKey(key)) {
      return sources.get(key);
    }
    String annotated = option.defaultValue();
    if (annotated != null && annotated.startsWith("${env:") && option.getValue() != null) {
      return "environment " + annotated.substring("${env:".length(), annotated.length() - 1);
    }
    return "default";
  }

  /**
   * " (from file F)" or " (from environment V)" when {@code failure} is about a value that came
   * from there rather than from a flag, which the message names; else empty.
   */
  static String origin(ParameterException failure) {
    if (failure.getArgSpec() instanceof OptionSpec option
        && failure.getCommandLine().getCommandSpec().defaultValueProvider() instanceof AgentSettings settings) {
      String source = settings.sources.get(key(option));
      if (source != null && !settings.spec.commandLine().getParseResult().hasMatchedOption(option)) {
        return " (from " + source + ")";
      }
    }
    return "";
  }

  /** Whether {@code key} was given (a flag, the environment or the file) rather than defaulted. */
  boolean given(String key) {
    return !source(key).equals("default");
  }

  /** Records that {@code key}'s value came from somewhere else than it was parsed from. */
  void replaced(String key, String source) {
    sources.put(key, source);
  }

  /**
   * The settings in effect as a config file -config takes back: one {@code key: value} a line,
   * each with where it came from, unset ones commented out, secrets left out.
   */
  String describe() {
    StringBuilder out = new StringBuilder("# setpoint agent: the settings in effect, and where each came from\n");
    Map<String, OptionSpec> settings = new TreeMap<>();
    for (OptionSpec option : spec.options()) {
      if (!NOT_SETTINGS.contains(key(option))) {
        settings.put(key(option), option);
      }
    }
    settings.forEach((key, option) -> {
      Object value = option.getValue();
      if (value == null) {
        out.append("# ").append(key).append(":  (not set)\n");
      } else if (SECRETS.contains(key)) {
        out.append("# ").append(key).append(": (set, not shown)  # ").append(source(key)).append('\n');
      } else {
        out.append(key).append(": ").append(yaml(value)).append("  # ").append(source(key)).append('\n');
      }
    });
    return out.toString();
  }

  private Map<String, String> file() {
    if (file != null) {
      return file;
    }
    OptionSpec config = spec.findOption("-" + CONFIG);
    Object given = config.getValue();
    filePath = given != null ? (Path) given : env.containsKey(envName(CONFIG)) ? Path.of(env.get(envName(CONFIG))) : null;
    file = filePath == null ? Map.of() : read(filePath);
    return file;
  }

  private Map<String, String> read(Path path) {
    Object parsed;
    try {
      String text = Files.readString(path);
      parsed = text.isBlank() ? Map.of() : new ObjectMapper(new YAMLFactory()).readValue(text, Object.class);
    } catch (NoSuchFileException e) {
      throw refused(path, "no such file");
    } catch (JacksonException e) {
      throw refused(path, "not YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw refused(path, "cannot be read: " + e.getMessage());
    }
    if (!(parsed instanceof Map<?, ?> entries)) {
      throw refused(path, "must be a map of settings (key: value lines), not a " + kind(parsed));
    }
    Set<String> known = spec.options().stream().map(AgentSettings::key)
        .filter(k -> !NOT_SETTINGS.contains(k)).collect(Collectors.toCollection(TreeSet::new));
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<?, ?> entry : entries.entrySet()) {
      String key = String.valueOf(entry.getKey());
      if (!known.contains(key)) {
        throw refused(path, "unknown key '" + key + "': the keys are the agent's flags without the dash ("
            + String.join(", ", known) + ")");
      }
      values.put(key, scalar(path, key, entry.getValue()));
    }
    return values;
  }

  private ParameterException refused(Path path, String why) {
    return new ParameterException(spec.commandLine(), "-config " + path + ": " + why);
  }

  /** A value as the flag would take it: a list (of -cluster's members, say) joined by commas. */
  private String scalar(Path path, String key, Object value) {
    if (value == null) {
      throw refused(path, "'" + key + "' has no value");
    }
    if (value instanceof List<?> list && list.stream().allMatch(AgentSettings::isScalar)) {
      return list.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    if (!isScalar(value)) {
      throw refused(path, "'" + key + "' must be one value or a list of values, not a " + kind(value));
    }
    return String.valueOf(value);
  }

  private static boolean isScalar(Object value) {
    return value instanceof String || value instanceof Number || value instanceof Boolean;
  }

  private static String kind(Object value) {
    return value instanceof Map ? "map" : value instanceof List ? "list" : value == null ? "nothing" : "value";
  }

  private static String key(OptionSpec option) {
    return option.longestName().replaceFirst("^-+", "");
  }

  /** A value as YAML reads it back: plain where that is unambiguous, else double-quoted. */
  private static String yaml(Object value) {
    String text = String.valueOf(value);
    if (value instanceof Boolean || value instanceof Number
        || text.matches("[A-Za-z0-9_./=,@+~-][A-Za-z0-9_./=,:@+~-]*") && !text.contains(": ") && !text.endsWith(":")
        && !text.matches("(?i)true|false|yes|no|on|off|null|~|[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)")) {
      return text;
    }
    return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
