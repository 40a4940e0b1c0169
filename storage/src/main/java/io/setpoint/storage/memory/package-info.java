/**
 * The in-memory backend ({@link io.setpoint.storage.memory.MemoryBackend}): the store engine with
 * nothing below it, for tests and {@code agent -dev}. Its data is lost when the process ends.
 */
package io.setpoint.storage.memory;
