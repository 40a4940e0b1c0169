package io.setpoint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The beans the starter makes, the properties it binds, what it refuses, and what users override. */
class SetpointAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(SetpointAutoConfiguration.class));

  @Test
  void withNoPropertiesAClientOfTheLocalAgentAManagerAndAHealthIndicatorAreMade() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(SetpointClient.class).hasSingleBean(Manager.class)
          .hasSingleBean(SetpointLifecycle.class).hasBean("setpointHealthIndicator");
      assertThat(context.getBean(SetpointClient.class).address()).isEqualTo("localhost:8500");
      SetpointProperties properties = context.getBean(SetpointProperties.class);
      assertThat(properties.deadline()).isEqualTo(Duration.ofSeconds(30));
      assertThat(properties.manager().drainTimeout()).isEqualTo(Duration.ofSeconds(20));
      assertThat(properties.manager().leaderElection()).isEmpty();
      assertThat(context.getBean(SetpointLifecycle.class).isRunning()).isTrue();
    });
  }

  @Test
  void thePropertiesAreBoundFromTheEnvironment() {
    runner.withPropertyValues("setpoint.address=n1:8500,n2:8501", "setpoint.token=s3cret", "setpoint.deadline=5s",
            "setpoint.manager.leader-election=orders", "setpoint.manager.lease-duration=9s",
            "setpoint.manager.renew-deadline=6s", "setpoint.manager.retry-period=1s",
            "setpoint.manager.startup-timeout=0s", "setpoint.health.timeout=750ms")
        .run(context -> {
          assertThat(context).hasNotFailed();
          SetpointProperties properties = context.getBean(SetpointProperties.class);
          assertThat(properties.address()).containsExactly("n1:8500", "n2:8501");
          assertThat(properties.token()).isEqualTo("s3cret");
          assertThat(properties.toString()).doesNotContain("s3cret");
          assertThat(properties.deadline()).isEqualTo(Duration.ofSeconds(5));
          assertThat(properties.tls().ca()).isNull();
          assertThat(properties.manager().leaderElection()).isEqualTo("orders");
          assertThat(properties.manager().leaseDuration()).isEqualTo(Duration.ofSeconds(9));
          assertThat(properties.manager().startupTimeout()).isZero();
          assertThat(properties.health().timeout()).isEqualTo(Duration.ofMillis(750));
          assertThat(context.getBean(SetpointClient.class).address()).isEqualTo("n1:8500,n2:8501");
        });
  }

  @Test
  void aBadValueFailsStartupNamingItsProperty(@TempDir Path dir) throws Exception {
    Path cert = java.nio.file.Files.writeString(dir.resolve("cert.pem"), "x");
    assertRefused("setpoint.deadline", "setpoint.deadline=0s");
    assertRefused("setpoint.manager.drain-timeout", "setpoint.manager.drain-timeout=-1s");
    assertRefused("setpoint.health.timeout", "setpoint.health.timeout=0ms");
    assertRefused("setpoint.address", "setpoint.address=");
    assertRefused("setpoint.address", "setpoint.address=no-port-here");
    assertRefused("setpoint.tls.ca", "setpoint.tls.ca=" + dir.resolve("missing.pem"));
    assertRefused("setpoint.tls.client-key", "setpoint.tls.client-certificate=" + cert);
    assertRefused("setpoint.manager.leader-election", "setpoint.manager.leader-election=Not_A_Label");
    assertRefused("setpoint.manager.shard-group", "setpoint.manager.shard-group=UPPER");
    // The renew deadline must be shorter than the lease.
    assertRefused("setpoint.manager.lease-duration", "setpoint.manager.leader-election=orders",
        "setpoint.manager.lease-duration=5s", "setpoint.manager.renew-deadline=6s");
  }

  private void assertRefused(String property, String... values) {
    runner.withPropertyValues(values).run(context -> {
      assertThat(context).as(List.of(values).toString()).hasFailed();
      Throwable cause = context.getStartupFailure();
      StringBuilder messages = new StringBuilder();
      for (Throwable t = cause; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      assertThat(messages.toString()).as(List.of(values).toString()).contains(property);
    });
  }

  @Test
  void beansTheAppDeclaresReplaceTheStartersOwn() {
    runner.withUserConfiguration(OwnBeans.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(SetpointClient.class).hasSingleBean(Manager.class);
      assertThat(context.getBean(SetpointClient.class)).isSameAs(context.getBean("ownClient"));
      assertThat(context.getBean(Manager.class)).isSameAs(context.getBean("ownManager"));
      assertThat(context.getBean("setpointHealthIndicator", HealthIndicator.class).health().getStatus().getCode())
          .isEqualTo("OWN");
    });
  }

  @Test
  void aCustomizerAdjustsTheBuilders() {
    runner.withUserConfiguration(Customized.class).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(SetpointClient.class).address()).isEqualTo("customized:9000");
    });
  }

  @Test
  void withTheManagerDisabledOnlyTheClientAndTheHealthIndicatorAreMade() {
    runner.withPropertyValues("setpoint.manager.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(SetpointClient.class).doesNotHaveBean(Manager.class)
          .doesNotHaveBean(SetpointLifecycle.class).hasBean("setpointHealthIndicator");
    });
  }

  @Test
  void theHealthIndicatorCanBeSwitchedOff() {
    runner.withPropertyValues("management.health.setpoint.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean("setpointHealthIndicator"));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    @Bean(destroyMethod = "close")
    SetpointClient ownClient() {
      return SetpointClient.connect("own:8500");
    }

    @Bean(destroyMethod = "close")
    Manager ownManager(SetpointClient client) {
      return Manager.builder().client(client).build();
    }

    @Bean
    HealthIndicator setpointHealthIndicator() {
      return () -> Health.status("OWN").build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Customized {
    @Bean
    SetpointCustomizer otherAddress() {
      return new SetpointCustomizer() {
        @Override
        public void client(SetpointClient.Builder client) {
          client.address("customized:9000");
        }
      };
    }
  }
}
