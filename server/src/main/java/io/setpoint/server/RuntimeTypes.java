package io.setpoint.server;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Registry;
import io.setpoint.storage.Backend;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Types defined at runtime: registers {@code core.v1.TypeDefinition} and keeps the registry in
 * step with the definitions in the store. Every member of a cluster follows its own copy of the
 * store, so each serves the same types, including after a restart or a catch-up by snapshot. A
 * definition is admitted on the member that receives it (see docs/types.md); the members only
 * read what was admitted.
 */
final class RuntimeTypes implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RuntimeTypes.class);

  private final Registry registry;
  private final StoreMirror<TypeDefinitions.Defined> definitions;

  private RuntimeTypes(Registry registry, Backend backend) {
    this.registry = registry;
    registry.register(new TypeDefinitions(registry, new StoredData(backend), this).registration());
    this.definitions = new StoreMirror<>(
        backend, TypeDefinitions.TYPE, r -> r.getId().getName(), TypeDefinitions::define, new Follow());
  }

  /**
   * Registers {@code core.v1.TypeDefinition} in {@code registry} and starts following the
   * definitions stored in {@code backend}; returns once the stored ones are registered, or after
   * {@code timeout} with a warning (the rest are registered as they are read).
   */
  public static RuntimeTypes start(Registry registry, Backend backend, Duration timeout) {
    RuntimeTypes types = new RuntimeTypes(registry, backend);
    try {
      if (!types.definitions.awaitSynced(timeout)) {
        log.warn("the stored type definitions were not all read within {}; they are registered as they arrive", timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      types.close();
      throw new IllegalStateException("interrupted while reading the stored type definitions", e);
    }
    return types;
  }

  /** Whether {@code type} is served because a stored definition defines it. */
  public boolean defines(Type type) {
    TypeDefinitions.Defined defined = definitions.get(TypeDefinitions.nameOf(type));
    return defined != null && registry.resolve(type).filter(r -> r == defined.registration()).isPresent();
  }

  /** The type the stored definition named {@code name} defines, if there is one. */
  Optional<Type> typeDefinedBy(String name) {
    return Optional.ofNullable(definitions.get(name)).map(TypeDefinitions.Defined::type);
  }

  @Override
  public void close() {
    definitions.close();
  }

  /** Applies the mirror's changes to the registry, in the order the store made them. */
  private final class Follow implements StoreMirror.Listener<TypeDefinitions.Defined> {
    @Override
    public void put(String name, TypeDefinitions.Defined previous, TypeDefinitions.Defined value) {
      if (previous != null && !previous.type().equals(value.type())) {
        removed(name, previous);
      }
      boolean ours = previous != null
          && registry.resolve(previous.type()).filter(r -> r == previous.registration()).isPresent();
      if (!ours && registry.resolve(value.type()).isPresent()) {
        // Admission refuses definitions of compiled types; one stored before the compiled type
        // was added (by a plugin, say) loses to it.
        log.warn("not serving the type defined by {}: {} is compiled into this server", name, Types.format(value.type()));
        return;
      }
      try {
        registry.replace(value.registration());
        log.info("serving {} as defined by {}", Types.format(value.type()), name);
      } catch (IllegalArgumentException e) {
        // Admission keeps messages unique; only a definition stored before a conflicting compiled
        // type was added gets here, and the compiled type wins.
        log.warn("not serving the type defined by {}: {}", name, e.getMessage());
      }
    }

    @Override
    public void removed(String name, TypeDefinitions.Defined value) {
      if (registry.resolve(value.type()).filter(r -> r == value.registration()).isPresent()) {
        registry.remove(value.type());
        log.info("no longer serving {}: its definition {} was deleted", Types.format(value.type()), name);
      }
    }
  }
}
