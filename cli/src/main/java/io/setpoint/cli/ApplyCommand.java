package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code setpoint resource apply -f FILE}: creates or updates the resources a file describes. */
@Command(name = "apply", description = {
    "Creates or updates resources from a JSON or YAML file (or stdin with -f -).",
    "The file may hold several documents (YAML ---, or a JSON array); all are checked",
    "before any is written. Each document:",
    "  {\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"miles\", \"tenancy\": {...}},",
    "   \"metadata\": {...}, \"data\": {\"name\": \"Miles Davis\"}}",
    "A \"version\" makes the write a compare-and-swap."})
final class ApplyCommand extends ResourceCall {
  @Option(names = "-f", paramLabel = "FILE", required = true, description = "The file to apply, or - for stdin.")
  private String file;

  @Override
  int run() {
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
    for (Resource resource : resources) {
      Resource before = current(resource);
      Resource stored = client.write(resource);
      String outcome = before == null ? "created"
          : before.getVersion().equals(stored.getVersion()) ? "unchanged" : "updated";
      out().println(outcome + " " + Ids.format(Ids.withoutUid(stored.getId())) + " (version " + stored.getVersion() + ")");
      out().flush();
    }
    return 0;
  }

  /** The stored resource the write will replace, or null; only to tell created from updated. */
  private Resource current(Resource resource) {
    try {
      return client.readConsistent(resource.getId());
    } catch (SetpointException e) {
      if (e.code() == Status.Code.NOT_FOUND) {
        return null;
      }
      throw e;
    }
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
