package io.setpoint.storage.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes through a backend from one thread and records every committed change in commit order, so a
 * test can compute exactly which events a watch must deliver.
 */
public final class Journal {
  private final Backend backend;
  private final List<Change> changes = new ArrayList<>();

  public Journal(Backend backend) {
    this.backend = backend;
  }

  /** Creates {@link Fixtures#resource(ID)}. */
  public Resource create(ID id) {
    return create(Fixtures.resource(id));
  }

  /** Creates {@code resource} (which has no version). */
  public Resource create(Resource resource) {
    return record(Change.upsert(backend.writeCas(resource))).resource();
  }

  /** Gives {@code stored} new data, CAS on its version. */
  public Resource update(Resource stored, String text) {
    return record(Change.upsert(backend.writeCas(Fixtures.changed(stored, text)))).resource();
  }

  /** Deletes {@code stored}, CAS on its version. */
  public Resource delete(Resource stored) {
    Resource deleted = backend.deleteCas(stored.getId(), stored.getVersion());
    assertThat(deleted).as("deleteCas of %s", stored.getId().getName()).isEqualTo(stored);
    return record(Change.delete(deleted)).resource();
  }

  /** A position in the journal, for {@link #since}. */
  public int mark() {
    return changes.size();
  }

  /** Every change recorded after {@code mark}. */
  public List<Change> since(int mark) {
    return List.copyOf(changes.subList(mark, changes.size()));
  }

  /** The changes after {@code mark} that a watch of the given selection reports, in order. */
  public List<Change> since(int mark, Type type, Tenancy tenancy, String namePrefix) {
    return since(mark).stream().filter(c -> c.selectedBy(type, tenancy, namePrefix)).toList();
  }

  private Change record(Change change) {
    changes.add(change);
    return change;
  }
}
