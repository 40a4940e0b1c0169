package io.setpoint.spring.test;

import io.setpoint.resource.Registry;
import io.setpoint.server.Agent;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts the agent of one test context before it refreshes, points {@code setpoint.address} at
 * it, and registers it as a bean that is destroyed last, after the app's manager stopped. Equal
 * for equal type lists, so that Spring's context cache shares contexts (and agents) between test
 * classes configured alike.
 */
record SetpointAgentCustomizer(List<Class<? extends Consumer<Registry>>> types) implements ContextCustomizer {
  static final String AGENT_BEAN = "setpointTestAgent";

  @Override
  public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
    List<Consumer<Registry>> registrars = types.stream().<Consumer<Registry>>map(BeanUtils::instantiateClass).toList();
    Agent agent = Agent.builder()
        .port(0)
        .acls(false)
        .types(registry -> registrars.forEach(r -> r.accept(registry)))
        .start();
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("setpointTestAgent",
        Map.of("setpoint.address", "127.0.0.1:" + agent.port())));
    // Registered before any bean of the app, so destroyed after all of them.
    DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
    beans.registerSingleton(AGENT_BEAN, agent);
    beans.registerDisposableBean(AGENT_BEAN, agent::close);
  }
}
