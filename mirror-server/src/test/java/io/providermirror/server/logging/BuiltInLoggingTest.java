package io.providermirror.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The logging configuration built in code: what it writes, and that a configuration on the class path wins. */
final class BuiltInLoggingTest {

    @Test
    void theTextFormatWritesOneEscapedLinePerEventAtInfoWithNettyAndCaffeineQuieter() {
        LoggerContext context = new LoggerContext();
        LogFormats.text(context);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertThat(root.getLevel()).isEqualTo(Level.INFO);
        assertThat(context.getLogger("io.netty").getLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger("com.github.benmanes.caffeine").getLevel()).isEqualTo(Level.ERROR);

        Logger logger = context.getLogger("io.providermirror.Example");
        LoggingEvent event =
                new LoggingEvent(Logger.FQCN, logger, Level.WARN, "bad name {}", null, new Object[] {"x\r\nforged"});
        event.setThreadName("main");
        String line = new String(
                ((ch.qos.logback.core.OutputStreamAppender<ch.qos.logback.classic.spi.ILoggingEvent>)
                                root.getAppender("STDERR"))
                        .getEncoder()
                        .encode(event),
                StandardCharsets.UTF_8);
        assertThat(line)
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) WARN  \\[main\\] "
                        + "Example - bad name x\\\\x0d\\\\x0aforged\\R");
    }

    @Test
    void aConfigurationOnTheClassPathWins() {
        // The tests' own logback-test.xml is on the class path: logback must go on to read it.
        LoggerContext context = new LoggerContext();
        BuiltInLogging builtIn = new BuiltInLogging();
        builtIn.setContext(context);
        assertThat(builtIn.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME)
                        .iteratorForAppenders()
                        .hasNext())
                .isFalse();
    }
}
