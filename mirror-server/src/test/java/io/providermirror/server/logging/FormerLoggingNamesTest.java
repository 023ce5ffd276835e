package io.providermirror.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.read.ListAppender;
import ch.qos.logback.core.status.Status;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Logging configurations written for earlier versions name the converters by their former names; they still work. */
final class FormerLoggingNamesTest {

    @Test
    void aConfigurationThatNamesTheFormerConvertersStillEscapesWhatItLogs() throws JoranException {
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(new ByteArrayInputStream(("<configuration>"
                        + "<conversionRule conversionWord=\"msg\" class=\"io.providermirror.server.EscapedMessageConverter\"/>"
                        + "<conversionRule conversionWord=\"ex\" class=\"io.providermirror.server.EscapedThrowableConverter\"/>"
                        + "<appender name=\"TEXT\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                        + "<encoder><pattern>%msg%n%ex</pattern></encoder></appender>"
                        + "<appender name=\"JSON\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                        + "<encoder class=\"io.providermirror.server.RedactingJsonEncoder\"/></appender>"
                        + "<root level=\"OFF\"><appender-ref ref=\"TEXT\"/><appender-ref ref=\"JSON\"/></root>"
                        + "</configuration>")
                .getBytes(StandardCharsets.UTF_8)));
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .as("logback's complaints about the configuration")
                .noneMatch(status -> status.getLevel() >= Status.WARN);

        ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events = new ListAppender<>();
        events.setContext(context);
        events.start();
        Logger logger = context.getLogger("test");
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
        logger.setAdditive(false);
        logger.addAppender(events);
        logger.info("forged\nINFO line");

        // The configured pattern, through the converter registered under its former name.
        var text = (ch.qos.logback.core.ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent>)
                context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("TEXT");
        var encoder = (ch.qos.logback.classic.encoder.PatternLayoutEncoder) text.getEncoder();
        assertThat(encoder.getLayout().doLayout(events.list.get(0))).startsWith("forged\\x0aINFO line");
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("JSON"))
                .extracting(appender -> ((ch.qos.logback.core.ConsoleAppender<?>) appender).getEncoder())
                .isInstanceOf(RedactingJsonEncoder.class);
    }
}
