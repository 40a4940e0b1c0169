package io.setpoint.resource;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.setpoint.api.Types;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import java.util.Objects;

/**
 * Everything the server knows about one resource type: its data message, scope, admission hooks
 * and whether the HTTP gateway serves it. Build one with {@link #of(Type, Class)} for a generated
 * message class, or {@link #dynamic(Type, Descriptor)} for a message known only by its descriptor
 * (a type defined at runtime). Rules declared in the message with protovalidate ({@code
 * buf.validate} options) are checked on every write, before the validate hook.
 *
 * <pre>{@code
 * Registration<Artist> artists = Registration.of(ARTIST, Artist.class)
 *     .mutate(...)
 *     .validate(...)
 *     .build();
 * }</pre>
 */
public record Registration<T extends Message>(
    Type type,
    Class<T> dataClass,
    T defaultInstance,
    Scope scope,
    Hooks.Validate validate,
    Hooks.Mutate mutate,
    Hooks.BeforeDelete beforeDelete,
    AclHooks acls,
    boolean http) {

  public Registration {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(dataClass, "dataClass");
    Objects.requireNonNull(defaultInstance, "defaultInstance");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(validate, "validate");
    Objects.requireNonNull(mutate, "mutate");
    Objects.requireNonNull(beforeDelete, "beforeDelete");
    Objects.requireNonNull(acls, "acls");
  }

  /** Starts a registration of {@code type} whose data is {@code dataClass}. */
  public static <T extends Message> Builder<T> of(Type type, Class<T> dataClass) {
    return new Builder<>(type, dataClass, DefaultInstances.of(Objects.requireNonNull(dataClass, "dataClass")));
  }

  /** Starts a registration of {@code type} whose data is the message {@code descriptor} describes. */
  public static Builder<DynamicMessage> dynamic(Type type, Descriptor descriptor) {
    return new Builder<>(type, DynamicMessage.class, DynamicMessage.getDefaultInstance(descriptor));
  }

  /** The data message's descriptor. */
  public Descriptor descriptor() {
    return defaultInstance.getDescriptorForType();
  }

  /** The type's full protobuf message name, e.g. {@code setpoint.demo.v2.Artist}. */
  public String dataMessageName() {
    return descriptor().getFullName();
  }

  /** Builds a {@link Registration}; every setting but the two given up front is optional. */
  public static final class Builder<T extends Message> {
    private final Type type;
    private final Class<T> dataClass;
    private final T defaultInstance;
    private Scope scope;
    private Hooks.Validate validate = Hooks.Validate.none();
    private Hooks.Mutate mutate = Hooks.Mutate.none();
    private Hooks.BeforeDelete beforeDelete = Hooks.BeforeDelete.none();
    private AclHooks acls = AclHooks.operator();
    private boolean http = true;

    private Builder(Type type, Class<T> dataClass, T defaultInstance) {
      this.type = Objects.requireNonNull(type, "type");
      this.dataClass = dataClass;
      this.defaultInstance = defaultInstance;
    }

    /**
     * The type's scope. Optional when the data message declares it with the {@code
     * setpoint.resource.v1.spec} option; must agree with the option when both are given.
     */
    public Builder<T> scope(Scope scope) {
      this.scope = Objects.requireNonNull(scope, "scope");
      return this;
    }

    public Builder<T> validate(Hooks.Validate validate) {
      this.validate = Objects.requireNonNull(validate, "validate");
      return this;
    }

    public Builder<T> mutate(Hooks.Mutate mutate) {
      this.mutate = Objects.requireNonNull(mutate, "mutate");
      return this;
    }

    /** Checks a stored resource before it is deleted; see {@link Hooks.BeforeDelete}. */
    public Builder<T> beforeDelete(Hooks.BeforeDelete beforeDelete) {
      this.beforeDelete = Objects.requireNonNull(beforeDelete, "beforeDelete");
      return this;
    }

    public Builder<T> acls(AclHooks acls) {
      this.acls = Objects.requireNonNull(acls, "acls");
      return this;
    }

    /** Whether the HTTP/JSON gateway serves this type (default true). */
    public Builder<T> http(boolean http) {
      this.http = http;
      return this;
    }

    /**
     * Checks the registration and builds it.
     *
     * @throws IllegalArgumentException when the type is malformed, the scope is missing or
     *     contradicts the message's option, or a protovalidate rule of the message does not compile
     */
    public Registration<T> build() {
      String problem = Types.problem(type);
      if (problem != null) {
        throw new IllegalArgumentException("cannot register " + Types.format(type) + ": " + problem);
      }
      Descriptor descriptor = defaultInstance.getDescriptorForType();
      Scope declared =
          descriptor.getOptions().hasExtension(AnnotationsProto.spec)
              ? descriptor.getOptions().getExtension(AnnotationsProto.spec).getScope()
              : Scope.SCOPE_UNDEFINED;
      Scope effective = scope != null ? scope : declared;
      if (effective == Scope.SCOPE_UNDEFINED || effective == Scope.UNRECOGNIZED) {
        throw new IllegalArgumentException(
            "cannot register "
                + Types.format(type)
                + ": no scope; declare option (setpoint.resource.v1.spec) on "
                + descriptor.getFullName()
                + " or call scope()");
      }
      if (declared != Scope.SCOPE_UNDEFINED && declared != effective) {
        throw new IllegalArgumentException(
            "cannot register "
                + Types.format(type)
                + ": scope "
                + effective
                + " contradicts the "
                + declared
                + " declared on "
                + descriptor.getFullName());
      }
      Hooks.Validate checked = ProtoRules.of(defaultInstance)
          .map(rules -> rules.andThen(validate))
          .orElse(validate);
      return new Registration<>(
          type, dataClass, defaultInstance, effective, checked, mutate, beforeDelete, acls, http);
    }
  }
}
