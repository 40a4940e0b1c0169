package io.setpoint.storage.engine;

import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import java.util.Objects;

/**
 * What a list or watch selects: resources of exactly {@code type} (group version included) in
 * {@code tenancy} (which may hold wildcards) whose names start with {@code namePrefix}.
 */
record Query(Type type, Tenancy tenancy, String namePrefix) {
  Query {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(tenancy, "tenancy");
    Objects.requireNonNull(namePrefix, "namePrefix");
  }

  /** True when {@code resource} is selected. */
  boolean matches(Resource resource) {
    return resource.getId().getType().equals(type)
        && Tenancies.matches(tenancy, resource.getId().getTenancy())
        && resource.getId().getName().startsWith(namePrefix);
  }

  String rangePrefix() {
    return StoreKeys.rangePrefix(type, tenancy, namePrefix);
  }
}
