package io.setpoint.controller.cache;

import io.setpoint.api.v1.Resource;
import java.util.List;

/** A named query over the cache, registered with the controller builder and run by name. */
@FunctionalInterface
public interface Query {
  List<Resource> run(Cache cache, Object... args);
}
