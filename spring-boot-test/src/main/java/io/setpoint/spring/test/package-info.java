/**
 * {@link io.setpoint.spring.test.SetpointTest}: a Spring Boot test whose app runs against an
 * in-memory Setpoint agent started for its context. A test-scoped artifact of its own, so that the
 * agent (setpoint-server) and Spring's test support never reach an app's runtime class path.
 */
package io.setpoint.spring.test;
