package io.setpoint.resource;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The types a server knows. Registration fails fast on a type registered twice or a data message
 * already bound to another type; lookups are lock-free. Types compiled into the server are
 * registered once at start; types defined at runtime are {@linkplain #replace replaced} and
 * {@linkplain #remove removed} while it serves, and every change bumps the {@link #version()}, so
 * what is derived from the types (JSON mappings, API documents) knows when to rebuild.
 */
public final class Registry {
  private volatile Snapshot current = new Snapshot(0, Map.of(), Map.of());

  private record Snapshot(long version, Map<Type, Registration<?>> byType, Map<String, Type> byMessage) {}

  /**
   * Adds a type.
   *
   * @throws IllegalArgumentException when the type or its data message is already registered
   */
  public synchronized Registry register(Registration<?> registration) {
    Type type = registration.type();
    if (current.byType.containsKey(type)) {
      throw new IllegalArgumentException("type " + Types.format(type) + " is already registered");
    }
    checkMessageFree(registration);
    install(registration, null);
    return this;
  }

  /**
   * Adds {@code registration}, or replaces the registration of its type.
   *
   * @throws IllegalArgumentException when its data message is the data of another type
   */
  public synchronized void replace(Registration<?> registration) {
    checkMessageFree(registration);
    install(registration, current.byType.get(registration.type()));
  }

  /** Removes {@code type}; returns whether it was registered. */
  public synchronized boolean remove(Type type) {
    Snapshot s = current;
    Registration<?> old = s.byType.get(type);
    if (old == null) {
      return false;
    }
    Map<Type, Registration<?>> byType = new HashMap<>(s.byType);
    Map<String, Type> byMessage = new HashMap<>(s.byMessage);
    byType.remove(type);
    byMessage.remove(old.dataMessageName());
    current = new Snapshot(s.version + 1, Map.copyOf(byType), Map.copyOf(byMessage));
    return true;
  }

  /** The registration of exactly {@code type} (group, version and kind). */
  public Optional<Registration<?>> resolve(Type type) {
    return Optional.ofNullable(current.byType.get(type));
  }

  /** The type whose data message is {@code messageName}, if any. */
  public Optional<Type> typeOfMessage(String messageName) {
    return Optional.ofNullable(current.byMessage.get(messageName));
  }

  /** Every registration, ordered by {@code group.version.Kind}. */
  public List<Registration<?>> types() {
    List<Registration<?>> all = new ArrayList<>(current.byType.values());
    all.sort(Comparator.comparing(r -> Types.format(r.type())));
    return all;
  }

  /** Counts the changes so far: equal versions mean the same set of registrations. */
  public long version() {
    return current.version;
  }

  private void checkMessageFree(Registration<?> registration) {
    Type other = current.byMessage.get(registration.dataMessageName());
    if (other != null && !other.equals(registration.type())) {
      throw new IllegalArgumentException(
          "cannot register "
              + Types.format(registration.type())
              + ": message "
              + registration.dataMessageName()
              + " is already the data of "
              + Types.format(other));
    }
  }

  private void install(Registration<?> registration, Registration<?> replaced) {
    Snapshot s = current;
    Map<Type, Registration<?>> byType = new HashMap<>(s.byType);
    Map<String, Type> byMessage = new HashMap<>(s.byMessage);
    if (replaced != null) {
      byMessage.remove(replaced.dataMessageName());
    }
    byType.put(registration.type(), registration);
    byMessage.put(registration.dataMessageName(), registration.type());
    current = new Snapshot(s.version + 1, Map.copyOf(byType), Map.copyOf(byMessage));
  }
}
