package io.setpoint.spring.test;

import java.util.List;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/** Gives a {@link SetpointTest} class its agent; Spring makes it, named by {@code @ContextCustomizerFactories}. */
final class SetpointAgentCustomizerFactory implements ContextCustomizerFactory {
  @Override
  public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
    SetpointTest test = TestContextAnnotationUtils.findMergedAnnotation(testClass, SetpointTest.class);
    return test == null ? null : new SetpointAgentCustomizer(List.of(test.types()));
  }
}
