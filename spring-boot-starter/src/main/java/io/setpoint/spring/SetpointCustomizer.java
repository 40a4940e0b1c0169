package io.setpoint.spring;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;

/**
 * Adjusts the client and the manager the starter builds, after the {@code setpoint.*} properties
 * are applied, for what properties do not cover (a clock, a ticker, custom leadership). Declare
 * one or more as beans; they run in their {@link org.springframework.core.annotation.Order}.
 *
 * <pre>{@code
 * @Bean
 * SetpointCustomizer shortDeadline() {
 *   return new SetpointCustomizer() {
 *     public void client(SetpointClient.Builder client) {
 *       client.deadline(Duration.ofSeconds(5));
 *     }
 *   };
 * }
 * }</pre>
 */
public interface SetpointCustomizer {
  /** Adjusts the {@code SetpointClient} bean's builder; does nothing unless overridden. */
  default void client(SetpointClient.Builder client) {}

  /** Adjusts the {@code Manager} bean's builder; does nothing unless overridden. */
  default void manager(Manager.Builder manager) {}
}
