/**
 * The storage SPI every backend implements: {@link io.setpoint.storage.Backend}, compare-and-swap
 * on every mutation, ordered watches. {@code engine} holds the indexed store backends share;
 * {@code memory} is the in-memory backend.
 */
package io.setpoint.storage;
