package io.setpoint.storage.memory;

import io.setpoint.storage.Backend;
import io.setpoint.storage.conformance.BackendConformanceTest;
import io.setpoint.storage.engine.StoreEngine.Limits;

/** The memory backend against the storage conformance suite. */
class MemoryBackendConformanceTest extends BackendConformanceTest {
  @Override
  protected Backend newBackend(Limits limits) {
    return new MemoryBackend(limits);
  }
}
