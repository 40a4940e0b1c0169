package io.setpoint.resource;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Message;
import io.setpoint.api.Types;
import io.setpoint.api.v1.AnnotationsProto;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import java.util.Objects;

/**
 * Everything the server knows about one resource type: its data message, scope, admission hooks
 * and whether the HTTP gateway serves it. Build one with {@link #of(Type, Class)}.
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
    Descriptor descriptor,
    Scope scope,
    Hooks.Validate validate,
    Hooks.Mutate mutate,
    AclHooks acls,
    boolean http) {

  public Registration {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(dataClass, "dataClass");
    Objects.requireNonNull(descriptor, "descriptor");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(validate, "validate");
    Objects.requireNonNull(mutate, "mutate");
    Objects.requireNonNull(acls, "acls");
  }

  /** Starts a registration of {@code type} whose data is {@code dataClass}. */
  public static <T extends Message> Builder<T> of(Type type, Class<T> dataClass) {
    return new Builder<>(type, dataClass);
  }

  /** The default instance of the data message: its parser, its descriptor. */
  public T defaultInstance() {
    return DefaultInstances.of(dataClass);
  }

  /** The type's full protobuf message name, e.g. {@code setpoint.demo.v2.Artist}. */
  public String dataMessageName() {
    return descriptor.getFullName();
  }

  /** Builds a {@link Registration}; every setting but the two given up front is optional. */
  public static final class Builder<T extends Message> {
    private final Type type;
    private final Class<T> dataClass;
    private Scope scope;
    private Hooks.Validate validate = Hooks.Validate.none();
    private Hooks.Mutate mutate = Hooks.Mutate.none();
    private AclHooks acls = AclHooks.operator();
    private boolean http = true;

    private Builder(Type type, Class<T> dataClass) {
      this.type = Objects.requireNonNull(type, "type");
      this.dataClass = Objects.requireNonNull(dataClass, "dataClass");
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
     * @throws IllegalArgumentException when the type is malformed or the scope is missing or
     *     contradicts the message's option
     */
    public Registration<T> build() {
      String problem = Types.problem(type);
      if (problem != null) {
        throw new IllegalArgumentException("cannot register " + Types.format(type) + ": " + problem);
      }
      Descriptor descriptor = DefaultInstances.of(dataClass).getDescriptorForType();
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
      return new Registration<>(type, dataClass, descriptor, effective, validate, mutate, acls, http);
    }
  }
}
