package io.setpoint.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/** Reads a duration option: {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1.5s}, or plain seconds. */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORMAT = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m)?");

  @Override
  public Duration convert(String value) {
    Matcher m = FORMAT.matcher(value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a duration such as 10s, 500ms or 2m, was '" + value + "'");
    }
    double amount = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    double millis = switch (unit) {
      case "ms" -> amount;
      case "m" -> amount * 60_000;
      default -> amount * 1000;
    };
    return Duration.ofNanos(Math.round(millis * 1_000_000));
  }
}
