package io.setpoint.controller;

import io.setpoint.api.Types;
import io.setpoint.controller.Controller.Placement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The controllers and loops registered on a manager, by name, each with the supervisor that runs
 * it. It refuses a name taken twice, a SHARDED controller without a shard group, and an index that
 * another controller defines with another function: the controllers share one cache, so one of
 * the two would read the other's index.
 */
final class ControllerRegistry {
  /** A registered controller and the supervisor that runs it. */
  record Supervised(ControllerSpec controller, Supervisor supervisor) {}

  private final Map<String, Supervised> controllers = new ConcurrentHashMap<>();
  private final Map<String, Supervisor> loops = new ConcurrentHashMap<>();

  /**
   * Checks that {@code controller} may be added: its name is free, it is not SHARDED in a manager
   * without a shard group ({@code sharding} false), and its indexes agree with the others'.
   *
   * @throws IllegalArgumentException when it may not
   */
  void checkAddable(ControllerSpec controller, boolean sharding) {
    if (loops.containsKey(controller.name()) || controllers.containsKey(controller.name())) {
      throw new IllegalArgumentException("a controller named " + controller.name() + " is already registered");
    }
    if (controller.placement() == Placement.SHARDED && !sharding) {
      throw new IllegalArgumentException("controller " + controller.name()
          + " is SHARDED: build the manager with Manager.Builder.sharding(Sharding.named(...)),"
          + " or start the agent that runs it with -shard-group NAME (Agent.Builder.shardGroup)");
    }
    for (ControllerSpec.TypeIndex index : controller.indexes()) {
      for (ControllerSpec other : specs()) {
        for (ControllerSpec.TypeIndex existing : other.indexes()) {
          if (existing.type().equals(index.type()) && existing.index().name().equals(index.index().name())
              && !existing.index().equals(index.index())) {
            throw new IllegalArgumentException("controller " + other.name() + " already indexes "
                + Types.format(index.type()) + " by \"" + index.index().name() + "\" with another function;"
                + " give the index of " + controller.name() + " another name, or share one Index between them");
          }
        }
      }
    }
  }

  /** Adds a controller that {@link #checkAddable} let through. */
  Supervised add(ControllerSpec controller, Supervisor supervisor) {
    Supervised added = new Supervised(controller, supervisor);
    controllers.put(controller.name(), added);
    return added;
  }

  /**
   * Checks that no controller or loop is named {@code name} yet.
   *
   * @throws IllegalArgumentException when one is
   */
  void checkLoopName(String name) {
    if (controllers.containsKey(name) || loops.containsKey(name)) {
      throw new IllegalArgumentException("a controller or loop named " + name + " is already registered");
    }
  }

  void addLoop(String name, Supervisor supervisor) {
    loops.put(name, supervisor);
  }

  /**
   * The controller {@code name}.
   *
   * @throws IllegalArgumentException when none has that name
   */
  Supervised controller(String name) {
    Supervised s = controllers.get(name);
    if (s == null) {
      throw new IllegalArgumentException("no controller named " + name + " is registered"
          + (controllers.isEmpty() ? "" : "; registered: " + String.join(", ", new TreeSet<>(controllers.keySet()))));
    }
    return s;
  }

  /** Forgets the controller and the loop {@code name}; the supervisors of those there were. */
  List<Supervisor> remove(String name) {
    List<Supervisor> removed = new ArrayList<>(2);
    Supervised controller = controllers.remove(name);
    if (controller != null) {
      removed.add(controller.supervisor());
    }
    Supervisor loop = loops.remove(name);
    if (loop != null) {
      removed.add(loop);
    }
    return removed;
  }

  /** The registered controllers with their supervisors, in no order. */
  Collection<Supervised> controllers() {
    return controllers.values();
  }

  /** The registered controllers, in no order. */
  List<ControllerSpec> specs() {
    return controllers.values().stream().map(Supervised::controller).toList();
  }

  /** The registered loops' supervisors, by name. */
  Map<String, Supervisor> loops() {
    return loops;
  }
}
