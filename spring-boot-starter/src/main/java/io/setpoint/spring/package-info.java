/**
 * Spring Boot auto-configuration for Setpoint: {@link io.setpoint.spring.SetpointProperties} (the
 * {@code setpoint.*} properties), a {@link io.setpoint.client.SetpointClient} bean, a {@link
 * io.setpoint.controller.Manager} bean that runs every {@link io.setpoint.controller.Controller}
 * and {@link io.setpoint.controller.loop.Loop} bean of the context and starts and stops with it,
 * its meters in Boot's {@code MeterRegistry}, its traces through Boot's {@code OpenTelemetry}, and
 * the {@code setpoint} health indicator. {@link io.setpoint.spring.SetpointCustomizer} adjusts what
 * the properties do not cover. docs/spring-boot.md is the guide.
 */
package io.setpoint.spring;
