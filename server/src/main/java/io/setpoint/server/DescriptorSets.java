package io.setpoint.server;

import build.buf.validate.ValidateProto;
import com.google.protobuf.AnyProto;
import com.google.protobuf.ApiProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.ExtensionRegistry;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.WrappersProto;
import io.setpoint.api.acl.v1.AclServiceProto;
import io.setpoint.api.core.v1.CoreProto;
import io.setpoint.api.operator.v1.OperatorProto;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.ResourceServiceProto;
import io.setpoint.resource.ValidationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the descriptors a type definition carries. The files the server compiled in (the
 * well-known types, the Setpoint protos, protovalidate's {@code buf/validate/validate.proto}) are
 * taken from the server's own copies whatever the definition holds, so the options that matter
 * (the resource spec, protovalidate's rules) are the extensions the server reads, not look-alikes.
 */
final class DescriptorSets {
  /** The most files a definition may carry (a file and what it imports, transitively). */
  static final int MAX_FILES = 64;

  private static final Map<String, FileDescriptor> KNOWN = known();
  private static final ExtensionRegistry EXTENSIONS = extensions();

  private DescriptorSets() {}

  /** Whether the server has its own copy of the file named {@code name}. */
  static boolean known(String name) {
    return KNOWN.containsKey(name);
  }

  /**
   * Every file of {@code set}, built, by name. Each file's dependencies must come before it (as
   * protoc writes them).
   *
   * @throws ValidationException on field {@code path} naming the file and what is wrong with it
   */
  static Map<String, FileDescriptor> build(FileDescriptorSet set, String path) {
    if (set.getFileCount() == 0) {
      throw ValidationException.of(path, "required", "must hold the file that declares the message");
    }
    if (set.getFileCount() > MAX_FILES) {
      throw ValidationException.of(path, "max-files",
          "holds " + set.getFileCount() + " files; at most " + MAX_FILES + " are allowed");
    }
    FileDescriptorSet withOptions = withExtensions(set, path);
    Map<String, FileDescriptor> built = new HashMap<>();
    for (int i = 0; i < withOptions.getFileCount(); i++) {
      FileDescriptorProto file = withOptions.getFile(i);
      String at = path + ".file[" + i + "]";
      if (file.getName().isEmpty()) {
        throw ValidationException.of(at + ".name", "required", "every file needs a name");
      }
      if (built.containsKey(file.getName())) {
        throw ValidationException.of(at + ".name", "unique", "file " + file.getName() + " appears twice");
      }
      FileDescriptor known = KNOWN.get(file.getName());
      if (known != null) {
        built.put(file.getName(), known);
        continue;
      }
      FileDescriptor[] dependencies = new FileDescriptor[file.getDependencyCount()];
      for (int d = 0; d < dependencies.length; d++) {
        String dependency = file.getDependency(d);
        FileDescriptor found = built.containsKey(dependency) ? built.get(dependency) : KNOWN.get(dependency);
        if (found == null) {
          throw ValidationException.of(at + ".dependency[" + d + "]", "import",
              file.getName() + " imports " + dependency
                  + ", which is not in the set before it (compile with protoc --include_imports)");
        }
        dependencies[d] = found;
      }
      try {
        built.put(file.getName(), FileDescriptor.buildFrom(file, dependencies));
      } catch (DescriptorValidationException e) {
        throw ValidationException.of(at, "descriptor", file.getName() + " is not a valid file: " + e.getDescription()
            + " (at " + e.getProblemSymbolName() + ")");
      } catch (IllegalArgumentException e) {
        throw ValidationException.of(at, "descriptor", file.getName() + " is not a valid file: " + e.getMessage());
      }
    }
    return built;
  }

  /**
   * {@code set} re-read with the option extensions known, so that a message's spec and a field's
   * rules are extensions rather than unknown fields of its options.
   */
  private static FileDescriptorSet withExtensions(FileDescriptorSet set, String path) {
    try {
      return FileDescriptorSet.parseFrom(set.toByteString(), EXTENSIONS);
    } catch (InvalidProtocolBufferException e) {
      throw ValidationException.of(path, "decodable", "options do not decode: " + e.getMessage());
    }
  }

  private static Map<String, FileDescriptor> known() {
    Map<String, FileDescriptor> files = new HashMap<>();
    for (FileDescriptor root : List.of(
        AnyProto.getDescriptor(), ApiProto.getDescriptor(), DurationProto.getDescriptor(),
        EmptyProto.getDescriptor(), FieldMaskProto.getDescriptor(), StructProto.getDescriptor(),
        TimestampProto.getDescriptor(), WrappersProto.getDescriptor(),
        com.google.protobuf.DescriptorProtos.getDescriptor(),
        AnnotationsProto.getDescriptor(), ResourceServiceProto.getDescriptor(), CoreProto.getDescriptor(),
        AclServiceProto.getDescriptor(), OperatorProto.getDescriptor(), ValidateProto.getDescriptor())) {
      add(root, files);
    }
    return Map.copyOf(files);
  }

  private static void add(FileDescriptor file, Map<String, FileDescriptor> into) {
    if (into.putIfAbsent(file.getName(), file) == null) {
      file.getDependencies().forEach(d -> add(d, into));
    }
  }

  private static ExtensionRegistry extensions() {
    ExtensionRegistry registry = ExtensionRegistry.newInstance();
    AnnotationsProto.registerAllExtensions(registry);
    ValidateProto.registerAllExtensions(registry);
    return registry.getUnmodifiable();
  }
}
