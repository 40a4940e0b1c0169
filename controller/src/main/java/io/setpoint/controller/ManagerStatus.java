package io.setpoint.controller;

import io.setpoint.controller.Manager.ControllerState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a manager tells of the controllers and loops registered on it: the state of each, the
 * controllers whose caches are not primed yet, and those that a failure stopped. Readiness checks,
 * {@code setpoint controller list} and the UI read it.
 */
final class ManagerStatus {
  private final ControllerRegistry registry;
  private final Placer placer;
  private final SharedCache cache;
  private final RunnerFactory runners;
  private final Faults faults;

  ManagerStatus(ControllerRegistry registry, Placer placer, SharedCache cache, RunnerFactory runners, Faults faults) {
    this.registry = registry;
    this.placer = placer;
    this.cache = cache;
    this.runners = runners;
    this.faults = faults;
  }

  /** See {@link Manager#loops()}. */
  Map<String, Boolean> loops() {
    Map<String, Boolean> out = new TreeMap<>();
    registry.loops().forEach((name, supervisor) -> out.put(name, supervisor.running() != null));
    return out;
  }

  /** See {@link Manager#unprimed()}. */
  List<String> unprimed() {
    List<String> out = new ArrayList<>();
    for (ControllerRegistry.Supervised s : registry.controllers()) {
      if (placer.runsHere(s.controller()) && s.supervisor().failure().isEmpty()
          && !cache.isPrimed(s.controller().cachedTypes())) {
        out.add(s.controller().name());
      }
    }
    out.sort(null);
    return out;
  }

  /** See {@link Manager#stopped()}. */
  List<String> stopped() {
    List<String> out = new ArrayList<>();
    for (ControllerRegistry.Supervised s : registry.controllers()) {
      if (placer.runsHere(s.controller()) && s.supervisor().running() == null) {
        s.supervisor().failure().ifPresent(why -> out.add(s.controller().name() + " (" + why + ")"));
      }
    }
    out.sort(null);
    return out;
  }

  /** See {@link Manager#controllers()}. */
  List<ControllerState> controllers() {
    List<ControllerState> out = new ArrayList<>();
    for (ControllerRegistry.Supervised s : registry.controllers()) {
      ControllerSpec c = s.controller();
      Runner runner = s.supervisor().running();
      ReconcileHistory history = runners.history(c.name());
      ReconcileHistory.Counts counts = history == null ? ReconcileHistory.Counts.NONE : history.counts();
      out.add(new ControllerState(c.name(), c.managedType(), c.placement(), runner != null,
          runner == null ? 0 : runner.queueDepth(), s.supervisor().failure(), c.concurrency(), counts.total(),
          counts.errors(), faults.count(c.name()), faults.last(c.name())));
    }
    out.sort(Comparator.comparing(ControllerState::name));
    return out;
  }
}
