package io.setpoint.cli;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code setpoint type read TYPE}: the definition of a type added with {@code type apply}. */
@Command(name = "read", description = "Shows the definition of a type added with 'type apply': its message, files and fields.")
final class TypeReadCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Mixin private OutputOption output;

  @Override
  int run() throws InvalidProtocolBufferException {
    Type read = type(type);
    Resource resource = client.read(Ids.of(Types.TYPE_DEFINITION, Types.definitionName(read)));
    if (output.format != Format.table) {
      new Printer(out(), output.format, this::json, Instant.now()).resource(resource);
      return 0;
    }
    TypeDefinition definition = resource.getData().unpack(TypeDefinition.class);
    PrintWriter out = out();
    out.println("type:        " + Types.format(read));
    out.println("definition:  " + resource.getId().getName() + " (version " + resource.getVersion() + ")");
    out.println("message:     " + definition.getMessage());
    json().type(read).ifPresent(info ->
        out.println("scope:       " + info.getScope().name().replace("SCOPE_", "").toLowerCase(Locale.ROOT)));
    out.println("files:       " + definition.getFiles().getFileList().stream()
        .map(FileDescriptorProto::getName).collect(Collectors.joining(", ")));
    for (FileDescriptorProto file : definition.getFiles().getFileList()) {
      String prefix = file.getPackage().isEmpty() ? "" : file.getPackage() + ".";
      for (DescriptorProto message : file.getMessageTypeList()) {
        if ((prefix + message.getName()).equals(definition.getMessage())) {
          out.println("fields:");
          for (FieldDescriptorProto field : message.getFieldList()) {
            out.printf(Locale.ROOT, "  %-3d %-24s %s%n", field.getNumber(), field.getName(), shape(field));
          }
        }
      }
    }
    out.flush();
    return 0;
  }

  private static String shape(FieldDescriptorProto field) {
    String type = field.hasTypeName()
        ? field.getTypeName().replaceFirst("^\\.", "")
        : field.getType().name().replace("TYPE_", "").toLowerCase(Locale.ROOT);
    return field.getLabel() == FieldDescriptorProto.Label.LABEL_REPEATED ? "repeated " + type : type;
  }
}
