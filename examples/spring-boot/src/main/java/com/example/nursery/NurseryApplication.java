package com.example.nursery;

import io.setpoint.controller.Controller;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot app that runs one Setpoint controller against the agent {@code setpoint.address}
 * names (application.yaml). The starter makes the client and the manager, registers this
 * controller bean on it, and exposes the manager's health and meters through Actuator.
 *
 * <pre>
 * mvn spring-boot:run    # then: curl localhost:8080/actuator/health
 * </pre>
 */
@SpringBootApplication
public class NurseryApplication {
  public static void main(String[] args) {
    SpringApplication.run(NurseryApplication.class, args);
  }

  // snippet:start controller-bean
  /** The seedling controller; the starter registers every Controller bean on its manager. */
  @Bean
  Controller seedlings() {
    return SeedlingController.controller();
  }
  // snippet:end controller-bean
}
