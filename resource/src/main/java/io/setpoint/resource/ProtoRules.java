package io.setpoint.resource;

import build.buf.protovalidate.Config;
import build.buf.protovalidate.ValidationResult;
import build.buf.protovalidate.Validator;
import build.buf.protovalidate.ValidatorFactory;
import build.buf.protovalidate.exceptions.CompilationException;
import build.buf.validate.FieldPathElement;
import build.buf.validate.ValidateProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.ExtensionRegistry;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Message.Builder;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.ValidationException.FieldViolation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The protovalidate ({@code buf.validate}) rules a data message declares, as a validate hook. The
 * rules are compiled when the type is registered, so a CEL expression that does not compile is
 * refused then rather than on the first write.
 */
final class ProtoRules {
  private static final ExtensionRegistry EXTENSIONS = extensions();

  private ProtoRules() {}

  /** A hook checking the rules of {@code prototype}'s message, or empty when it declares none. */
  static Optional<Hooks.Validate> of(Message prototype) {
    Descriptor descriptor = prototype.getDescriptorForType();
    if (!declaresRules(descriptor, new HashSet<>())) {
      return Optional.empty();
    }
    Validator validator;
    try {
      validator = ValidatorFactory.newBuilder()
          .withConfig(Config.newBuilder().setExtensionRegistry(EXTENSIONS).build())
          .buildWithDescriptors(List.of(descriptor), true);
    } catch (CompilationException | IllegalStateException e) {
      throw new IllegalArgumentException(
          "a protovalidate rule of " + descriptor.getFullName() + " does not compile: " + e.getMessage(), e);
    }
    return Optional.of(resource -> check(validator, prototype, resource));
  }

  /** Compiles the rules of {@code descriptor}; the message of the failure when one does not compile. */
  static Optional<String> compileProblem(Descriptor descriptor) {
    try {
      ValidatorFactory.newBuilder()
          .withConfig(Config.newBuilder().setExtensionRegistry(EXTENSIONS).build())
          .buildWithDescriptors(List.of(descriptor), true);
      return Optional.empty();
    } catch (CompilationException | IllegalStateException e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }

  private static void check(Validator validator, Message prototype, Resource resource) {
    if (!resource.hasData()) {
      return; // the request validator requires data; nothing here to add to that
    }
    Message data;
    try {
      Builder builder = prototype.newBuilderForType();
      builder.mergeFrom(resource.getData().getValue(), EXTENSIONS);
      data = builder.build();
    } catch (InvalidProtocolBufferException e) {
      throw ValidationException.of("data", "decodable", "cannot be decoded: " + e.getMessage());
    }
    ValidationResult result;
    try {
      result = validator.validate(data);
    } catch (build.buf.protovalidate.exceptions.ValidationException e) {
      // A rule that compiled but failed to run (a CEL runtime error): the data is refused, with why.
      throw ValidationException.of("data", "rules", "could not be checked: " + e.getMessage());
    }
    if (result.isSuccess()) {
      return;
    }
    List<FieldViolation> violations = new ArrayList<>();
    for (build.buf.protovalidate.Violation v : result.getViolations()) {
      build.buf.validate.Violation proto = v.toProto();
      String path = path(proto.getField().getElementsList());
      violations.add(new FieldViolation(
          path.isEmpty() ? "data" : "data." + path,
          proto.getRuleId().isEmpty() ? "rule" : proto.getRuleId(),
          proto.getMessage()));
    }
    throw new ValidationException(violations);
  }

  /** {@code leaves[2].color}, {@code labels["x"]}: the path the way the API's field errors print it. */
  static String path(List<FieldPathElement> elements) {
    StringBuilder out = new StringBuilder();
    for (FieldPathElement e : elements) {
      if (!out.isEmpty()) {
        out.append('.');
      }
      out.append(e.getFieldName());
      switch (e.getSubscriptCase()) {
        case INDEX -> out.append('[').append(e.getIndex()).append(']');
        case BOOL_KEY -> out.append('[').append(e.getBoolKey()).append(']');
        case INT_KEY -> out.append('[').append(e.getIntKey()).append(']');
        case UINT_KEY -> out.append('[').append(Long.toUnsignedString(e.getUintKey())).append(']');
        case STRING_KEY -> out.append("[\"").append(e.getStringKey()).append("\"]");
        case SUBSCRIPT_NOT_SET -> { }
      }
    }
    return out.toString();
  }

  /** Whether the message, or one it holds, carries a {@code buf.validate} option. */
  static boolean declaresRules(Descriptor message, Set<Descriptor> seen) {
    if (!seen.add(message)) {
      return false;
    }
    if (hasRule(message.getOptions())) {
      return true;
    }
    for (OneofDescriptor oneof : message.getOneofs()) {
      if (hasRule(oneof.getOptions())) {
        return true;
      }
    }
    for (FieldDescriptor field : message.getFields()) {
      if (hasRule(field.getOptions())) {
        return true;
      }
      if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && declaresRules(field.getMessageType(), seen)) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasRule(com.google.protobuf.GeneratedMessage.ExtendableMessage<?> options) {
    // Options parsed without the extension known keep it as an unknown field of the same number.
    return options.getUnknownFields().hasField(ValidateProto.field.getNumber())
        || options.getAllFields().keySet().stream()
            .anyMatch(f -> f.isExtension() && f.getContainingType().getFullName().startsWith("google.protobuf.")
                && f.getFullName().startsWith("buf.validate."));
  }

  private static ExtensionRegistry extensions() {
    ExtensionRegistry registry = ExtensionRegistry.newInstance();
    ValidateProto.registerAllExtensions(registry);
    return registry;
  }
}
