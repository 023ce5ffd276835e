package io.providermirror.server.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import io.providermirror.model.Urls;

/**
 * {@code %ex} as {@link EscapedMessageConverter} writes messages: the stack trace as usual, but exception
 * messages cannot start a line of their own or carry terminal escapes, and URLs in them lose their queries.
 * Installed by {@link LogFormats}.
 */
public class EscapedThrowableConverter extends ThrowableProxyConverter {

    @Override
    protected String throwableProxyToString(IThrowableProxy throwable) {
        return EscapedMessageConverter.escaped(Urls.redactedIn(super.throwableProxyToString(throwable)), true);
    }
}
