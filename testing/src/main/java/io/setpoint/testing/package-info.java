/**
 * Testing controllers against a real server: {@link io.setpoint.testing.SetpointExtension} runs an
 * in-memory agent with your types and controllers for each JUnit 5 test, and {@link
 * io.setpoint.testing.TestResource} builds the resources a test writes to it.
 */
package io.setpoint.testing;
