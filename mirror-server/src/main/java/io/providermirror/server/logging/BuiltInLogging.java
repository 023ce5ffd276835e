package io.providermirror.server.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's configuration when nobody gave one: the text format of {@link LogFormats}, found by logback
 * through {@code META-INF/services}. A configuration of the operator's own ({@code -Dlogback.configurationFile})
 * or a {@code logback.xml} / {@code logback-test.xml} on the class path wins: logback then reads that as usual.
 */
public final class BuiltInLogging extends ContextAwareBase implements Configurator {

    /** Public, with no arguments: logback's service loader makes it. */
    public BuiltInLogging() {}

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null
                || resource("logback-test.xml")
                || resource("logback.xml")) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        LogFormats.text(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static boolean resource(String name) {
        ClassLoader loader = BuiltInLogging.class.getClassLoader();
        return loader != null && loader.getResource(name) != null;
    }
}
