package io.setpoint.bench;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A number of resources for {@code bench scale -sizes}: {@code 2000}, {@code 10k}, {@code 1m}
 * (k = 1,000, m = 1,000,000), positive and at most {@link #MAX}, so every name fits the loader's
 * nine digits.
 */
final class ScaleSize implements ITypeConverter<Integer> {
  /** The largest size: names are {@code artist-} and nine digits. */
  static final int MAX = 999_999_999;
  private static final Pattern FORMAT = Pattern.compile("([0-9]+)([kKmM]?)");

  @Override
  public Integer convert(String value) {
    Matcher m = FORMAT.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException("expected a number of resources such as 2000, 10k or 1m, was '" + value + "'");
    }
    long multiplier = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 1_000L;
      case "m" -> 1_000_000L;
      default -> 1L;
    };
    long size = m.group(1).length() > 10 ? Long.MAX_VALUE : Long.parseLong(m.group(1)) * multiplier;
    if (size <= 0 || size > MAX) {
      throw new TypeConversionException("a size must be from 1 to " + MAX + " resources, was '" + value + "'");
    }
    return (int) size;
  }

  /** {@code 10k}, {@code 1m}, or {@code 2,500} for a size that is no round thousand. */
  static String label(int size) {
    if (size % 1_000_000 == 0) {
      return size / 1_000_000 + "m";
    }
    return size % 1_000 == 0 ? size / 1_000 + "k" : String.format(Locale.ROOT, "%,d", size);
  }
}
