package io.setpoint.cli;

import io.setpoint.api.v1.Resource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * A resource command that writes the resources of a JSON or YAML file ({@code -f FILE}, or stdin
 * with {@code -f -}): every document is parsed before any is written.
 */
abstract class FileCall extends ResourceCall {
  @Option(names = "-f", paramLabel = "FILE", required = true, description = "The file to read, or - for stdin.")
  private String file;

  /** The resources of the file, in order; a document that does not parse names its place. */
  List<Resource> resources() {
    String source = file.equals("-") ? "stdin" : file;
    List<Resource> resources = new ArrayList<>();
    List<String> documents = Documents.read(input(), source);
    for (int i = 0; i < documents.size(); i++) {
      try {
        resources.add(json().parse(documents.get(i)));
      } catch (IllegalArgumentException e) {
        throw new CliException(source + (documents.size() > 1 ? ", document " + (i + 1) : "") + ": " + e.getMessage(), e);
      }
    }
    return resources;
  }

  private String input() {
    try {
      byte[] bytes = file.equals("-")
          ? ((Main) spec.root().userObject()).stdin().readAllBytes()
          : Files.readAllBytes(Path.of(file));
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CliException("cannot read " + file + ": no such file", e);
    } catch (IOException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
