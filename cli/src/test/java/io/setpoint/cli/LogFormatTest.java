package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The log format the distribution ships ({@code logback.xml}): a reconcile's lines carry its
 * controller and resource (or a loop's key) from the MDC, and other lines stay as they were.
 */
class LogFormatTest {
  @Test
  void aReconcilesLinesNameItsControllerAndResourceAndOthersDoNot() throws Exception {
    String xml;
    try (InputStream in = LogFormatTest.class.getResourceAsStream("/logback.xml")) {
      xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher pattern = Pattern.compile("<pattern>(.*)</pattern>").matcher(xml);
    assertThat(pattern.find()).as("logback.xml has a pattern").isTrue();
    LoggerContext context = new LoggerContext();
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.setPattern(pattern.group(1));
    layout.start();
    Logger logger = context.getLogger("io.setpoint.controller.manager.Workers");

    assertThat(line(layout, logger, Level.INFO, "plain", Map.of())).endsWith("[INFO ] Workers: plain");
    assertThat(line(layout, logger, Level.WARN, "reconcile failed",
        Map.of("controller", "demo-artist", "resource", "demo.v2.Artist/default/default/nina")))
        .endsWith("[WARN ] Workers: [demo-artist] demo.v2.Artist/default/default/nina reconcile failed");
    assertThat(line(layout, logger, Level.INFO, "handled", Map.of("controller", "inventory", "key", "sku-1")))
        .endsWith("[INFO ] Workers: [inventory] sku-1 handled");
    assertThat(line(layout, logger, Level.INFO, "traced", Map.of("controller", "demo-artist", "resource", "a/b",
        "trace_id", "4bf92f3577b34da6a3ce929d0e0e4736")))
        .endsWith("[INFO ] Workers: [demo-artist] a/b trace=4bf92f3577b34da6a3ce929d0e0e4736 traced");
  }

  private static String line(PatternLayout layout, Logger logger, Level level, String message, Map<String, String> mdc) {
    LoggingEvent event = new LoggingEvent(Logger.FQCN, logger, level, message, null, null);
    event.setMDCPropertyMap(mdc);
    return layout.doLayout(event).stripTrailing();
  }
}
