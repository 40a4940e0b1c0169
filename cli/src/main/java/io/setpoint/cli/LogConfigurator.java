package io.setpoint.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * The CLI's and the agent's logging: one concise line per event on stderr, with a reconcile's
 * controller and resource (or loop key), and its trace when tracing is on, from the MDC. Set in
 * code rather than in a logback.xml, as parsing one took a fifth of a second of every start.
 *
 * <p>The root level is {@code -Dsetpoint.log.level} (default INFO). A {@code
 * -Dlogback.configurationFile}, or a {@code logback-test.xml} on the class path, is used instead.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} [%-5level] %logger{0}:"
      + "%replace( [%X{controller}]){' \\[\\]', ''}%replace( %X{resource}%X{key}){'^ $', ''}"
      + "%replace( trace=%X{trace_id}){' trace=$', ''} %msg%n";

  /** Called by logback's service loader. */
  public LogConfigurator() {}

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || LogConfigurator.class.getClassLoader().getResource("logback-test.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    apply(context, System.getProperty("setpoint.log.level"));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Configures {@code context}: root level {@code rootLevel} (INFO when null or unknown). */
  static void apply(LoggerContext context, String rootLevel) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("CONSOLE");
    console.setTarget("System.err");
    console.setEncoder(encoder);
    console.start();
    for (String quiet : new String[] {"com.linecorp.armeria", "io.netty", "io.grpc",
        // Ratis logs every routine retry towards a new leader as an ERROR; its warnings are enough.
        "org.apache.ratis"}) {
      context.getLogger(quiet).setLevel(Level.WARN);
    }
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(rootLevel, Level.INFO));
    root.addAppender(console);
  }
}
