package io.setpoint.cli;

import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code setpoint type apply -f FILE.proto}: adds or changes the types a .proto file declares. */
@Command(name = "apply", description = {
    "Adds or changes the types a .proto file declares: every top-level message with",
    "option (setpoint.resource.v1.spec) = {scope: ...}. The group and version are the last two",
    "parts of the package (acme.garden.v1 gives garden.v1), the kind the message's name.",
    "The file may import the Setpoint protos, google/protobuf/*.proto and buf/validate/validate.proto",
    "(protovalidate rules, checked on every write), and files next to it or under -I."})
final class TypeApplyCommand extends ResourceCall {
  /** How long to wait for the agent to serve what it accepted. */
  private static final Duration SERVED_WITHIN = Duration.ofSeconds(10);

  @Option(names = "-f", paramLabel = "FILE", required = true, description = "The .proto file.")
  private Path file;

  @Option(names = "-I", paramLabel = "DIR", description = "Another directory to resolve imports in (repeatable).")
  private List<Path> includes = new ArrayList<>();

  @Option(names = {"-force", "--force"},
      description = "Accept breaking changes that lose no stored data (a field retyped that no stored resource sets).")
  private boolean force;

  @Override
  int run() throws InterruptedException {
    FileDescriptorSet compiled = ProtoCompiler.compile(file, includes);
    List<ScopedMessages.Declared> declared = ScopedMessages.in(compiled, file.getFileName().toString());
    // The agent has its own copies of the files the compiler took from the distribution.
    FileDescriptorSet files = FileDescriptorSet.newBuilder()
        .addAllFile(compiled.getFileList().stream().filter(f -> !ProtoCompiler.bundled(f.getName())).toList())
        .build();
    for (ScopedMessages.Declared type : declared) {
      ID id = Ids.of(Types.TYPE_DEFINITION, Types.definitionName(type.type()));
      Resource before = find(id);
      Resource stored = client.write(Resource.newBuilder().setId(id).setData(Any.pack(TypeDefinition.newBuilder()
          .setMessage(type.message().getFullName()).setFiles(files).setForce(force).build())).build());
      String outcome = before == null ? "created"
          : before.getVersion().equals(stored.getVersion()) ? "unchanged" : "updated";
      out().println(Types.format(type.type()) + " " + outcome + " (definition " + id.getName()
          + ", version " + stored.getVersion() + ")");
      out().flush();
    }
    awaitServed(declared.stream().map(ScopedMessages.Declared::type).collect(Collectors.toSet()));
    return 0;
  }

  private Resource find(ID id) {
    try {
      return client.readConsistent(id);
    } catch (SetpointException e) {
      if (e.code() == Status.Code.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /** The agent answers a write once it is committed; it serves the type a moment later. */
  private void awaitServed(Set<Type> types) throws InterruptedException {
    long deadline = System.nanoTime() + SERVED_WITHIN.toNanos();
    while (true) {
      Set<Type> served = client.types().getTypesList().stream().map(t -> t.getType()).collect(Collectors.toSet());
      if (served.containsAll(types)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new CliException("the agent accepted the definitions but does not serve "
            + types.stream().filter(t -> !served.contains(t)).map(Types::format).sorted().collect(Collectors.joining(", "))
            + " after " + SERVED_WITHIN.toSeconds() + " s; see its log");
      }
      Thread.sleep(20);
    }
  }
}
