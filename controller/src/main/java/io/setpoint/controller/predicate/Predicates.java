package io.setpoint.controller.predicate;

import io.setpoint.api.v1.Resource;
import io.setpoint.controller.cache.ResourceEvent;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Event filters: a controller (or one of its watches) only reacts to events its predicates accept.
 * Creates and deletes always pass the change-detecting predicates; they filter updates.
 */
public final class Predicates {
  private Predicates() {}

  /** Accepts everything. */
  public static Predicate<ResourceEvent> any() {
    return event -> true;
  }

  /** Updates only when {@code generation} changed, i.e. the data did (not status, not metadata). */
  public static Predicate<ResourceEvent> generationChanged() {
    return event -> isCreateOrDelete(event)
        || !event.previous().getGeneration().equals(event.resource().getGeneration());
  }

  /** Updates only when the metadata changed. */
  public static Predicate<ResourceEvent> metadataChanged() {
    return event -> isCreateOrDelete(event)
        || !event.previous().getMetadataMap().equals(event.resource().getMetadataMap());
  }

  /** Updates only when the status changed. */
  public static Predicate<ResourceEvent> statusChanged() {
    return event -> isCreateOrDelete(event)
        || !event.previous().getStatusMap().equals(event.resource().getStatusMap());
  }

  /**
   * Only resources whose metadata holds every entry of {@code selector} (like a Kubernetes label
   * selector with equality terms). For an update, either the old or the new state may match, so
   * a resource leaving the selection is still seen.
   */
  public static Predicate<ResourceEvent> metadataSelector(Map<String, String> selector) {
    Map<String, String> terms = Map.copyOf(selector);
    return event -> selects(terms, event.resource())
        || (event.previous() != null && selects(terms, event.previous()));
  }

  private static boolean selects(Map<String, String> terms, Resource resource) {
    return resource.getMetadataMap().entrySet().containsAll(terms.entrySet());
  }

  private static boolean isCreateOrDelete(ResourceEvent event) {
    return event.previous() == null || event.isDelete();
  }
}
