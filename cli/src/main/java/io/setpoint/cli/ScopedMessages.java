package io.setpoint.cli;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.setpoint.api.Types;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The types a compiled .proto file declares: its top-level messages that carry the {@code
 * setpoint.resource.v1.spec} option, each named by the last two parts of the package and the
 * message's name ({@code acme.garden.v1.Plant} is {@code garden.v1.Plant}).
 */
final class ScopedMessages {
  private ScopedMessages() {}

  /** One type of the file. */
  record Declared(Type type, Descriptor message) {}

  /**
   * The types {@code fileName} declares in {@code set}.
   *
   * @throws CliException when it declares none, or its package cannot name a type
   */
  static List<Declared> in(FileDescriptorSet set, String fileName) {
    Map<String, FileDescriptor> built = new HashMap<>();
    FileDescriptor target = null;
    for (FileDescriptorProto proto : set.getFileList()) {
      FileDescriptor[] deps = proto.getDependencyList().stream().map(built::get).toArray(FileDescriptor[]::new);
      try {
        FileDescriptor file = FileDescriptor.buildFrom(proto, deps);
        built.put(proto.getName(), file);
        if (proto.getName().equals(fileName)) {
          target = file;
        }
      } catch (DescriptorValidationException e) {
        throw new CliException(proto.getName() + ": " + e.getMessage(), e);
      }
    }
    if (target == null) {
      throw new CliException("protoc's output has no " + fileName);
    }
    List<Declared> declared = new ArrayList<>();
    for (Descriptor message : target.getMessageTypes()) {
      if (!message.getOptions().hasExtension(AnnotationsProto.spec)
          || message.getOptions().getExtension(AnnotationsProto.spec).getScope() == Scope.SCOPE_UNDEFINED) {
        continue;
      }
      String[] parts = target.getPackage().split("\\.");
      if (parts.length < 2 || parts[0].isEmpty()) {
        throw new CliException(fileName + ": package \"" + target.getPackage() + "\" needs at least two parts, the last"
            + " two being the group and version of its types (acme.garden.v1 gives garden.v1)");
      }
      Type type = Types.of(parts[parts.length - 2], parts[parts.length - 1], message.getName());
      String problem = Types.problem(type);
      if (problem != null) {
        throw new CliException(fileName + ": " + message.getFullName() + " would be the type " + Types.format(type)
            + ", which is not valid: " + problem);
      }
      declared.add(new Declared(type, message));
    }
    if (declared.isEmpty()) {
      throw new CliException(fileName + " declares no type: give at least one top-level message"
          + " option (setpoint.resource.v1.spec) = {scope: SCOPE_NAMESPACE} (or SCOPE_PARTITION, SCOPE_CLUSTER)");
    }
    return declared;
  }
}
