package io.setpoint.testkit;

import build.buf.validate.FieldRules;
import build.buf.validate.StringRules;
import build.buf.validate.ValidateProto;
import com.google.protobuf.Any;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceTypeSpec;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;

/**
 * {@code garden.v1.Plant}, a cluster-scoped type that exists only as a definition (no generated
 * class): the file a user would apply, built in code, and plants as {@code DynamicMessage}s.
 */
public final class GardenTypes {
  /** The type the definition adds. */
  public static final Type PLANT = Types.of("garden", "v1", "Plant");
  /** The definition's resource id. */
  public static final ID DEFINITION = Ids.of(Types.TYPE_DEFINITION, Types.definitionName(PLANT));

  private GardenTypes() {}

  /**
   * {@code acme/garden/v1/garden.proto}: Plant with {@code species} (at least one character) and
   * {@code height_cm}, an int32, or a string when {@code heightAsText}.
   */
  public static FileDescriptorSet files(boolean heightAsText) {
    FieldOptions speciesRules = FieldOptions.newBuilder()
        .setExtension(ValidateProto.field, FieldRules.newBuilder().setString(StringRules.newBuilder().setMinLen(1)).build())
        .build();
    DescriptorProto plant = DescriptorProto.newBuilder().setName("Plant")
        .setOptions(MessageOptions.newBuilder().setExtension(AnnotationsProto.spec,
            ResourceTypeSpec.newBuilder().setScope(Scope.SCOPE_CLUSTER).build()))
        .addField(FieldDescriptorProto.newBuilder().setName("species").setNumber(1)
            .setType(FieldDescriptorProto.Type.TYPE_STRING).setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL)
            .setOptions(speciesRules))
        .addField(FieldDescriptorProto.newBuilder().setName("height_cm").setNumber(2)
            .setType(heightAsText ? FieldDescriptorProto.Type.TYPE_STRING : FieldDescriptorProto.Type.TYPE_INT32)
            .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL))
        .build();
    return FileDescriptorSet.newBuilder().addFile(FileDescriptorProto.newBuilder()
        .setName("acme/garden/v1/garden.proto").setPackage("acme.garden.v1").setSyntax("proto3")
        .addDependency("buf/validate/validate.proto")
        .addDependency("setpoint/resource/v1/annotations.proto")
        .addMessageType(plant)).build();
  }

  /** The definition of garden.v1.Plant with the given files. */
  public static Resource definition(FileDescriptorSet files) {
    return Resource.newBuilder().setId(DEFINITION).setData(Any.pack(TypeDefinition.newBuilder()
        .setMessage("acme.garden.v1.Plant").setFiles(files).build())).build();
  }

  /** The Plant message, as a client without generated code builds it. */
  public static Descriptor plantMessage() {
    try {
      FileDescriptor file = FileDescriptor.buildFrom(files(false).getFile(0), new FileDescriptor[] {
          ValidateProto.getDescriptor(), AnnotationsProto.getDescriptor()});
      return file.findMessageTypeByName("Plant");
    } catch (DescriptorValidationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A plant named {@code name}. */
  public static Resource plant(String name, String species, int heightCm) {
    Descriptor message = plantMessage();
    DynamicMessage data = DynamicMessage.newBuilder(message)
        .setField(message.findFieldByName("species"), species)
        .setField(message.findFieldByName("height_cm"), heightCm)
        .build();
    return Resource.newBuilder().setId(Ids.of(PLANT, name)).setData(Any.pack(data)).build();
  }
}
