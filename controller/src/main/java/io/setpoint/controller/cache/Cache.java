package io.setpoint.controller.cache;

import com.google.protobuf.Message;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Decoded;
import java.util.List;
import java.util.Optional;

/**
 * Read access to the controller cache: every resource of every watched type, kept current by one
 * watch per type and shared by all controllers of a manager (each resource is held once). It is
 * primed (the watch reached its end of snapshot) before any mapper or reconciler runs, and updated
 * before the requests an event causes are queued.
 */
public interface Cache {
  /** The cached resource {@code id} names (its uid, if any, must match too). */
  Optional<Resource> get(ID id);

  /** Every cached resource of {@code type}, in key order. */
  List<Resource> list(Type type);

  /** The resources of {@code type} whose index {@code index} holds {@code key}. */
  List<Resource> listByIndex(Type type, String index, String key);

  /** The single resource of {@code type} whose index {@code index} holds {@code key}, if any. */
  Optional<Resource> getByIndex(Type type, String index, String key);

  /**
   * The resources of {@code type} whose index {@code index} holds {@code key} or one of its
   * ancestors: for {@code a/b/c}, the keys {@code a/b/c}, {@code a/b} and {@code a}. Each resource
   * once, nearest first.
   */
  List<Resource> parents(Type type, String index, String key);

  /** Runs the named query registered with the controller builder. */
  List<Resource> query(String name, Object... args);

  /** Every cached resource of {@code type}, with its data decoded as {@code data}. */
  <T extends Message> List<Decoded<T>> listDecoded(Type type, Class<T> data);

  /** The cached resource {@code id} names, with its data decoded as {@code data}. */
  <T extends Message> Optional<Decoded<T>> getDecoded(ID id, Class<T> data);

  /**
   * A named query over the cache, registered with {@code Controller.Builder.query} and run by name
   * with {@link Cache#query}.
   */
  @FunctionalInterface
  interface Query {
    /** The resources that {@code args} select, read from {@code cache}. */
    List<Resource> run(Cache cache, Object... args);
  }
}
