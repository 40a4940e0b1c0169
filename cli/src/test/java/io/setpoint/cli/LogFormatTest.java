package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.Layout;
import ch.qos.logback.core.read.ListAppender;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The log format the distribution ships ({@link LogConfigurator}): a reconcile's lines carry its
 * controller and resource (or a loop's key) from the MDC, and other lines stay as they were.
 */
class LogFormatTest {
  @Test
  void aReconcilesLinesNameItsControllerAndResourceAndOthersDoNot() {
    LoggerContext context = new LoggerContext();
    LogConfigurator.apply(context, null);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    var console = (ConsoleAppender<ILoggingEvent>) root.getAppender("CONSOLE");
    assertThat(console.getTarget()).isEqualTo("System.err");
    Layout<ILoggingEvent> layout = ((PatternLayoutEncoder) console.getEncoder()).getLayout();
    Logger logger = context.getLogger("io.setpoint.controller.Workers");

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

  @Test
  void theRootLevelIsInfoUnlessGivenAndTheLibrariesOnlyWarn() {
    LoggerContext defaults = new LoggerContext();
    LogConfigurator.apply(defaults, null);
    assertThat(defaults.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.INFO);
    for (String library : new String[] {"com.linecorp.armeria", "io.netty", "io.grpc", "org.apache.ratis"}) {
      assertThat(defaults.getLogger(library).getEffectiveLevel()).as(library).isEqualTo(Level.WARN);
    }
    LoggerContext quiet = new LoggerContext();
    LogConfigurator.apply(quiet, "WARN");
    assertThat(quiet.getLogger("io.setpoint.server.Agent").getEffectiveLevel()).isEqualTo(Level.WARN);
  }

  /** The JDK's own logging (System.Logger, as its HTTP client uses) is written to the same log. */
  @Test
  void theJdksOwnLoggingReachesTheLog() {
    Logger logger = (Logger) LoggerFactory.getLogger("setpoint.test.platform-logging");
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    try {
      System.getLogger("setpoint.test.platform-logging").log(System.Logger.Level.WARNING, "from the JDK: {0}", 42);
      assertThat(events.list).singleElement().satisfies(event -> {
        assertThat(event.getLevel()).isEqualTo(Level.WARN);
        assertThat(event.getFormattedMessage()).isEqualTo("from the JDK: 42");
      });
    } finally {
      logger.detachAppender(events);
    }
  }

  private static String line(Layout<ILoggingEvent> layout, Logger logger, Level level, String message, Map<String, String> mdc) {
    LoggingEvent event = new LoggingEvent(Logger.FQCN, logger, level, message, null, null);
    event.setMDCPropertyMap(mdc);
    return layout.doLayout(event).stripTrailing();
  }
}
