package io.setpoint.resource;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.setpoint.api.v1.Resource;
import java.util.function.UnaryOperator;

/**
 * Admission hooks and the typed helpers that build them.
 *
 * <pre>{@code
 * Registration.of(ARTIST, Artist.class)
 *     .mutate(Hooks.decodeAndMutate(Artist.class, a -> a.getGenre().isEmpty()
 *         ? a.toBuilder().setGenre("rock").build() : a))
 *     .validate(Hooks.decodeAndValidate(Artist.class, (artist, v) ->
 *         v.requireNonEmpty("name", artist.data().getName())))
 * }</pre>
 *
 * <p>Hooks run in the thread that received the request; for a gRPC {@code Write} that is one of
 * the server's I/O threads, which serve other requests too. Keep hooks quick and free of blocking
 * calls (no I/O, no calls back into Setpoint): decide from the resource they are given.
 */
public final class Hooks {
  private Hooks() {}

  /** Checks a resource before it is stored; throws {@link ValidationException} to refuse it. */
  @FunctionalInterface
  public interface Validate {
    void validate(Resource resource) throws ValidationException;

    /** Accepts every resource. */
    static Validate none() {
      return resource -> {};
    }

    /** This check, then {@code next} on a resource this one accepted. */
    default Validate andThen(Validate next) {
      return resource -> {
        validate(resource);
        next.validate(resource);
      };
    }
  }

  /** Rewrites a resource before it is validated (defaults, normalisation). */
  @FunctionalInterface
  public interface Mutate {
    Resource mutate(Resource resource) throws ValidationException;

    /** Leaves every resource as it is. */
    static Mutate none() {
      return resource -> resource;
    }
  }

  /**
   * Checks a stored resource before it is deleted; throws to refuse the delete, e.g. {@link
   * RefusedException} while something still depends on it. Runs after the caller was found
   * allowed to delete it.
   */
  @FunctionalInterface
  public interface BeforeDelete {
    void check(Resource stored);

    /** Allows every delete. */
    static BeforeDelete none() {
      return stored -> {};
    }
  }

  /** Validates decoded data; records problems in {@code violations}, rooted at {@code data}. */
  @FunctionalInterface
  public interface DataValidator<T extends Message> {
    void validate(Decoded<T> resource, Violations violations);
  }

  /**
   * Unpacks {@code data} as {@code type}.
   *
   * @throws ValidationException with rule {@code data-type} or {@code decodable} on field {@code
   *     data} when it holds another message or bytes that do not parse
   */
  public static <T extends Message> Decoded<T> decode(Resource resource, Class<T> type) {
    if (!resource.hasData()) {
      throw ValidationException.of("data", "required", "must be set");
    }
    T prototype = DefaultInstances.of(type);
    String typeUrl = resource.getData().getTypeUrl();
    String name = prototype.getDescriptorForType().getFullName();
    int slash = typeUrl.lastIndexOf('/');
    // What Any.is(type) checks (the name after the last '/'), without its reflective lookup of the
    // default instance, and without copying the name out of the URL.
    if (slash < 0
        || typeUrl.length() - slash - 1 != name.length()
        || !typeUrl.startsWith(name, slash + 1)) {
      throw ValidationException.of(
          "data",
          "data-type",
          "holds " + typeUrl + " but the type needs " + type.getName());
    }
    try {
      return new Decoded<>(resource, type.cast(prototype.getParserForType().parseFrom(resource.getData().getValue())));
    } catch (InvalidProtocolBufferException e) {
      throw ValidationException.of("data", "decodable", "cannot be decoded: " + e.getMessage());
    }
  }

  /** A validate hook that decodes the data and hands it to {@code validator}. */
  public static <T extends Message> Validate decodeAndValidate(
      Class<T> type, DataValidator<T> validator) {
    return resource -> {
      Decoded<T> decoded = decode(resource, type);
      Violations violations = Violations.at("data");
      validator.validate(decoded, violations);
      violations.throwIfAny();
    };
  }

  /** A mutate hook that decodes the data, rewrites it, and packs the result back. */
  public static <T extends Message> Mutate decodeAndMutate(Class<T> type, UnaryOperator<T> mutator) {
    return resource -> {
      Decoded<T> decoded = decode(resource, type);
      T mutated = mutator.apply(decoded.data());
      return mutated.equals(decoded.data()) ? resource : decoded.withData(mutated);
    };
  }
}
