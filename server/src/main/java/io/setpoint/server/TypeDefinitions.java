package io.setpoint.server;

import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.TypeDefinition;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.Hooks;
import io.setpoint.resource.RefusedException;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.ValidationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The type {@code core.v1.TypeDefinition} and what a definition means: the registration of the
 * type it defines, and the admission of a new or changed definition (well-formed descriptors, a
 * message with a scope, rules that compile, no change that stored data cannot follow).
 */
final class TypeDefinitions {
  /** {@code core.v1.TypeDefinition}: a type added at runtime; cluster-scoped; operator permissions. */
  static final Type TYPE = Types.TYPE_DEFINITION;

  private final Registry registry;
  private final StoredData stored;
  private final RuntimeTypes runtime;

  TypeDefinitions(Registry registry, StoredData stored, RuntimeTypes runtime) {
    this.registry = registry;
    this.stored = stored;
    this.runtime = runtime;
  }

  /** The registration of {@code core.v1.TypeDefinition}, with its admission hooks. */
  Registration<TypeDefinition> registration() {
    return Registration.of(TYPE, TypeDefinition.class)
        .mutate(this::admit)
        .beforeDelete(this::checkUnused)
        .acls(AclHooks.operator())
        .build();
  }

  /** The name of the definition of {@code type}: {@code garden.v1.Plant} is {@code garden-v1-plant}. */
  static String nameOf(Type type) {
    return Types.definitionName(type);
  }

  /** A checked definition: the type it defines and the registration that serves it. */
  record Defined(Type type, Registration<DynamicMessage> registration) {}

  /**
   * Reads a stored or proposed definition.
   *
   * @throws ValidationException naming the field of the definition ({@code data.files}, ...) that
   *     is wrong
   */
  static Defined define(Resource resource) {
    TypeDefinition definition = Hooks.decode(resource, TypeDefinition.class).data();
    if (definition.getMessage().isEmpty()) {
      throw ValidationException.of("data.message", "required",
          "must name the type's data message, e.g. acme.garden.v1.Plant");
    }
    Map<String, FileDescriptor> files = DescriptorSets.build(definition.getFiles(), "data.files");
    Descriptor message = find(definition.getMessage(), files);
    Type type = typeOf(message);
    Scope scope = message.getOptions().getExtension(AnnotationsProto.spec).getScope();
    String expected = nameOf(type);
    if (!resource.getId().getName().equals(expected)) {
      throw ValidationException.of("id.name", "type-definition-name",
          "must be " + expected + ", the name of the definition of " + Types.format(type));
    }
    try {
      return new Defined(type, Registration.dynamic(type, message).scope(scope).acls(AclHooks.perType()).build());
    } catch (IllegalArgumentException e) {
      throw ValidationException.of("data.files", "rules", e.getMessage());
    }
  }

  private static Descriptor find(String name, Map<String, FileDescriptor> files) {
    for (FileDescriptor file : files.values()) {
      String pkg = file.getPackage();
      if (name.startsWith(pkg.isEmpty() ? "" : pkg + ".")) {
        Descriptor found = file.findMessageTypeByName(pkg.isEmpty() ? name : name.substring(pkg.length() + 1));
        if (found != null) {
          if (DescriptorSets.known(file.getName())) {
            throw ValidationException.of("data.message", "compiled",
                name + " is declared in " + file.getName() + ", which is compiled into the server");
          }
          return found;
        }
      }
    }
    throw ValidationException.of("data.message", "declared",
        "no top-level message " + name + " in the files of the definition");
  }

  private static Type typeOf(Descriptor message) {
    if (!message.getOptions().hasExtension(AnnotationsProto.spec)
        || message.getOptions().getExtension(AnnotationsProto.spec).getScope() == Scope.SCOPE_UNDEFINED) {
      throw ValidationException.of("data.message", "scope",
          message.getFullName() + " has no scope: declare option (setpoint.resource.v1.spec) = {scope: ...}");
    }
    String[] parts = message.getFile().getPackage().split("\\.");
    if (parts.length < 2 || parts[0].isEmpty()) {
      throw ValidationException.of("data.message", "package",
          "the package of " + message.getFullName() + " needs at least two parts, the last two being group and"
              + " version (acme.garden.v1 gives garden.v1)");
    }
    Type type = Types.of(parts[parts.length - 2], parts[parts.length - 1], message.getName());
    String problem = Types.problem(type);
    if (problem != null) {
      throw ValidationException.of("data.message", "type",
          message.getFullName() + " would define " + Types.format(type) + ", which is not a valid type: " + problem);
    }
    return type;
  }

  /** Admits a definition: checks it against the server's types and the stored data, clears force. */
  private Resource admit(Resource resource) {
    Defined defined = define(resource);
    Type type = defined.type();
    Optional<Type> named = runtime.typeDefinedBy(resource.getId().getName());
    if (named.isPresent() && !named.get().equals(type)) {
      throw ValidationException.of("id.name", "type-definition-name", resource.getId().getName()
          + " already defines " + Types.format(named.get()) + ", and " + Types.format(type)
          + " would have the same definition name: choose a kind that differs in more than case");
    }
    Optional<Registration<?>> current = registry.resolve(type);
    if (current.isPresent() && !runtime.defines(type)) {
      throw ValidationException.of("data.message", "compiled",
          Types.format(type) + " is compiled into this server; a definition cannot replace it");
    }
    Optional<Type> owner = registry.typeOfMessage(defined.registration().dataMessageName());
    if (owner.isPresent() && !owner.get().equals(type)) {
      throw ValidationException.of("data.message", "unique",
          defined.registration().dataMessageName() + " is already the data of " + Types.format(owner.get()));
    }
    TypeDefinition definition = Hooks.decode(resource, TypeDefinition.class).data();
    current.ifPresent(previous -> checkCompatible(previous, defined.registration(), definition.getForce()));
    // Files the server has its own copies of are resolved by name: storing them would only repeat
    // them in every definition (protovalidate's alone is larger than most types).
    TypeDefinition.Builder stored = definition.toBuilder().setForce(false);
    stored.getFilesBuilder().clearFile();
    definition.getFiles().getFileList().stream()
        .filter(file -> !DescriptorSets.known(file.getName()))
        .forEach(stored.getFilesBuilder()::addFile);
    TypeDefinition kept = stored.build();
    return kept.equals(definition) ? resource : resource.toBuilder().setData(Any.pack(kept)).build();
  }

  private void checkCompatible(Registration<?> before, Registration<?> after, boolean force) {
    List<String> refused = new ArrayList<>();
    long count = -1;
    if (before.scope() != after.scope() || !before.dataMessageName().equals(after.dataMessageName())) {
      count = stored.count(before.type(), before.scope());
      String change = before.scope() != after.scope()
          ? "the scope changes from " + before.scope() + " to " + after.scope()
          : "the data message changes from " + before.dataMessageName() + " to " + after.dataMessageName();
      if (count > 0) {
        refused.add(change + " while " + count + " resources are stored");
      } else if (!force) {
        refused.add(change + " (no resources are stored; --force allows it)");
      }
    }
    for (Compatibility.Change change : Compatibility.changes(before.descriptor(), after.descriptor())) {
      long setting = stored.countSetting(before.type(), before.scope(), before.descriptor(), change.path());
      if (setting > 0) {
        refused.add(change.description() + ", and " + setting + " stored resources set it");
      } else if (change.kind() == Compatibility.Kind.RETYPED && !force) {
        refused.add(change.description() + " (no stored resource sets it; --force allows it)");
      }
    }
    if (!refused.isEmpty()) {
      throw new RefusedException(
          "the new definition of " + Types.format(before.type()) + " breaks " + refused.size()
              + (refused.size() == 1 ? " rule" : " rules"),
          refused);
    }
  }

  private void checkUnused(Resource stored) {
    Defined defined;
    try {
      defined = define(stored);
    } catch (ValidationException e) {
      return; // a definition the server cannot read serves no type: nothing can depend on it
    }
    long count = this.stored.count(defined.type(), defined.registration().scope());
    if (count > 0) {
      throw new RefusedException(
          Types.format(defined.type()) + " still has " + count + (count == 1 ? " resource" : " resources")
              + "; delete them before its definition",
          List.of());
    }
  }
}
