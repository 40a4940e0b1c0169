package io.setpoint.testing.repo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Code blocks of a Markdown document tied to marked regions of source files, so a test can
 * check that the document shows exactly what the build compiles.
 *
 * <p>In a source file, a region is the lines between a line containing {@code snippet:start NAME}
 * and one containing {@code snippet:end NAME}, in whatever comment the language has; lines of
 * other markers inside it are left out, and the common indentation is removed. In the document, a
 * line {@code <!-- snippet: PATH#NAME -->} (PATH from the repository root) is followed by the
 * fenced block that must equal that region.
 */
final class Snippets {
  private static final Pattern REFERENCE = Pattern.compile("^<!-- snippet: (\\S+)#(\\S+) -->$");
  private static final Pattern FENCE = Pattern.compile("^```(\\S*)$");
  private static final Pattern MARKER = Pattern.compile("snippet:(start|end) (\\S+)");

  private Snippets() {}

  /** A fenced block of a document: its language, its text, whether a reference names its source. */
  record Block(int line, String language, String text, String path, String region) {
    boolean referenced() {
      return path != null;
    }
  }

  /** Every fenced block of {@code markdown}, with the reference above it if any. */
  static List<Block> blocks(Path markdown) throws IOException {
    List<String> lines = Files.readAllLines(markdown);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher reference = REFERENCE.matcher(lines.get(i).strip());
      String path = null;
      String region = null;
      int fence = i;
      if (reference.matches()) {
        path = reference.group(1);
        region = reference.group(2);
        fence = i + 1;
        if (fence >= lines.size() || !FENCE.matcher(lines.get(fence)).matches()) {
          throw new IllegalStateException(markdown.getFileName() + ":" + (i + 1)
              + ": a snippet reference must be followed at once by a fenced code block");
        }
      }
      Matcher open = FENCE.matcher(lines.get(fence));
      if (!open.matches()) {
        continue;
      }
      int close = fence + 1;
      while (close < lines.size() && !lines.get(close).equals("```")) {
        close++;
      }
      if (close == lines.size()) {
        throw new IllegalStateException(markdown.getFileName() + ":" + (fence + 1) + ": unclosed code block");
      }
      blocks.add(new Block(fence + 1, open.group(1), String.join("\n", lines.subList(fence + 1, close)), path, region));
      i = close;
    }
    return blocks;
  }

  /** The region {@code name} of {@code source}, marker lines left out and indentation removed. */
  static String region(Path source, String name) throws IOException {
    List<String> lines = Files.readAllLines(source);
    int start = -1;
    int end = -1;
    for (int i = 0; i < lines.size(); i++) {
      Matcher marker = MARKER.matcher(lines.get(i));
      if (marker.find() && marker.group(2).equals(name)) {
        if (marker.group(1).equals("start")) {
          if (start >= 0) {
            throw new IllegalStateException(source + ": region " + name + " starts twice");
          }
          start = i;
        } else {
          end = i;
        }
      }
    }
    if (start < 0 || end < start) {
      throw new IllegalStateException(source + ": no region " + name
          + " (a line with snippet:start " + name + ", then one with snippet:end " + name + ")");
    }
    List<String> body = new ArrayList<>();
    for (String line : lines.subList(start + 1, end)) {
      if (!MARKER.matcher(line).find()) {
        body.add(line);
      }
    }
    int indent = body.stream()
        .filter(line -> !line.isBlank())
        .mapToInt(line -> line.length() - line.stripLeading().length())
        .min()
        .orElse(0);
    return String.join("\n", body.stream().map(line -> line.isBlank() ? "" : line.substring(indent)).toList());
  }
}
