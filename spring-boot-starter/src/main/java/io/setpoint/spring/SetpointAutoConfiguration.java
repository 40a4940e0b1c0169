package io.setpoint.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.Ticker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the Setpoint beans of a Boot app from the {@code setpoint.*} properties; each is made only
 * when the app declares none of its own. Registered in {@code META-INF/spring/...AutoConfiguration.imports};
 * an app never refers to this class. It runs after Boot's metrics and OpenTelemetry set-up, so
 * the manager finds their beans.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"})
@EnableConfigurationProperties(SetpointProperties.class)
public class SetpointAutoConfiguration {
  /** Made by Spring. */
  public SetpointAutoConfiguration() {}

  /**
   * The client of the agent the properties name, tracing through the app's {@code OpenTelemetry}
   * if it has one; closed with the context.
   */
  @Bean
  @ConditionalOnMissingBean
  public SetpointClient setpointClient(SetpointProperties properties, ObjectProvider<OpenTelemetry> openTelemetry,
      ObjectProvider<SetpointCustomizer> customizers) {
    return SetpointBeans.client(properties, openTelemetry.getIfUnique(), customizers.orderedStream().toList());
  }

  /**
   * The manager of the app's controllers and loops, with its meters in the app's {@code
   * MeterRegistry} and its traces through its {@code OpenTelemetry}, if it has them. The
   * lifecycle bean starts and closes it.
   */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "setpoint.manager.enabled", matchIfMissing = true)
  public Manager setpointManager(SetpointClient client, SetpointProperties properties,
      ObjectProvider<MeterRegistry> meters, ObjectProvider<OpenTelemetry> openTelemetry,
      ObjectProvider<SetpointCustomizer> customizers) {
    return SetpointBeans.manager(client, properties.manager(), meters.getIfUnique(), openTelemetry.getIfUnique(),
        customizers.orderedStream().toList());
  }

  /**
   * Registers every {@link Controller} and {@link Loop} bean on the manager and starts it with the
   * context; stops it gracefully, first of all, when the context closes.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "setpoint.manager.enabled", matchIfMissing = true)
  SetpointLifecycle setpointLifecycle(Manager manager, SetpointProperties properties,
      ObjectProvider<Controller> controllers, ObjectProvider<Loop<?, ?>> loops) {
    return new SetpointLifecycle(manager, properties.manager().startupTimeout(), Ticker.system(),
        () -> controllers.orderedStream().toList(), () -> loops.orderedStream().toList());
  }

  /** The {@code setpoint} health indicator, when the app has Boot's health support. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("setpoint")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "setpointHealthIndicator")
    HealthIndicator setpointHealthIndicator(SetpointClient client, ObjectProvider<Manager> manager,
        SetpointProperties properties) {
      return new SetpointHealthIndicator(client, manager.getIfUnique(), properties.health().timeout());
    }
  }
}
