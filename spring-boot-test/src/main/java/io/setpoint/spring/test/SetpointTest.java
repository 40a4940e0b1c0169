package io.setpoint.spring.test;

import io.setpoint.resource.Registry;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.function.Consumer;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * A Spring Boot test ({@link SpringBootTest}) whose app talks to a real in-memory Setpoint agent:
 * before the context starts, an agent is started on a free loopback port, without ACLs, serving
 * the {@link #types}, and {@code setpoint.address} points at it; the agent stops after the context
 * closes. The app's own controllers then run in its {@code Manager} bean, against that agent,
 * exactly as in production. The agent is a bean too ({@code io.setpoint.server.Agent}), for a
 * test that wants its manager or port. Contexts are cached by Spring as usual: test classes with
 * the same configuration share one context, and so one agent.
 *
 * <pre>{@code
 * @SetpointTest(types = NurseryTypes.Registrar.class) // a Consumer<Registry> of your own
 * class SeedlingControllerTest {
 *   @Autowired SetpointClient client;
 *
 *   @Test
 *   void aSeedlingGetsPlanned() {
 *     client.write(...);
 *     await().until(() -> ...);
 *   }
 * }
 * }</pre>
 *
 * <p>This lives in {@code setpoint-spring-boot-test}, added with {@code <scope>test</scope>},
 * rather than in the starter: the starter would otherwise carry the whole agent and Spring's test
 * support as optional dependencies that every app has to know to add, and could leak them into a
 * production class path.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest
@ContextCustomizerFactories(SetpointAgentCustomizerFactory.class)
public @interface SetpointTest {
  /**
   * What registers the types the agent serves: classes with a public no-argument constructor,
   * each called with the agent's registry (a method reference cannot go in an annotation).
   */
  Class<? extends Consumer<Registry>>[] types() default {};

  /** More properties of the test's environment, {@code key=value}; as {@link SpringBootTest#properties}. */
  @AliasFor(annotation = SpringBootTest.class)
  String[] properties() default {};

  /** The configuration classes of the app; as {@link SpringBootTest#classes}. */
  @AliasFor(annotation = SpringBootTest.class)
  Class<?>[] classes() default {};

  /** The web environment; as {@link SpringBootTest#webEnvironment} (a mock one by default). */
  @AliasFor(annotation = SpringBootTest.class)
  SpringBootTest.WebEnvironment webEnvironment() default SpringBootTest.WebEnvironment.MOCK;
}
