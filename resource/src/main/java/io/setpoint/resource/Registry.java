package io.setpoint.resource;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The types a server knows. Registration fails fast on a type registered twice or a data message
 * already bound to another type; lookups are lock-free.
 */
public final class Registry {
  private final Map<Type, Registration<?>> byType = new ConcurrentHashMap<>();
  private final Map<String, Type> byMessage = new ConcurrentHashMap<>();

  /**
   * Adds a type.
   *
   * @throws IllegalArgumentException when the type or its data message is already registered
   */
  public synchronized Registry register(Registration<?> registration) {
    Type type = registration.type();
    if (byType.containsKey(type)) {
      throw new IllegalArgumentException("type " + Types.format(type) + " is already registered");
    }
    Type other = byMessage.get(registration.dataMessageName());
    if (other != null) {
      throw new IllegalArgumentException(
          "cannot register "
              + Types.format(type)
              + ": message "
              + registration.dataMessageName()
              + " is already the data of "
              + Types.format(other));
    }
    byType.put(type, registration);
    byMessage.put(registration.dataMessageName(), type);
    return this;
  }

  /** The registration of exactly {@code type} (group, version and kind). */
  public Optional<Registration<?>> resolve(Type type) {
    return Optional.ofNullable(byType.get(type));
  }

  /** Every registration, ordered by {@code group.version.Kind}. */
  public List<Registration<?>> types() {
    List<Registration<?>> all = new ArrayList<>(byType.values());
    all.sort(Comparator.comparing(r -> Types.format(r.type())));
    return all;
  }
}
