package io.providermirror.server.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.providermirror.model.Urls;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * {@code logging.format: json}: logback's JSON lines (which escape control characters themselves), with URLs
 * in them stripped of their query strings as {@link EscapedMessageConverter} does for text lines. Installed by
 * {@link LogFormats#json}.
 */
public class RedactingJsonEncoder extends JsonEncoder {

    /** Logback writes "/" as "\/" (the same string to JSON), which hides URLs; "\\/" is a backslash and a slash. */
    private static final Pattern ESCAPED_SLASH = Pattern.compile("(?<!\\\\)((?:\\\\\\\\)*)\\\\/");

    @Override
    public byte[] encode(ILoggingEvent event) {
        byte[] line = super.encode(event);
        String text = new String(line, StandardCharsets.UTF_8);
        String redacted = Urls.redactedIn(ESCAPED_SLASH.matcher(text).replaceAll("$1/"));
        return redacted.equals(text) ? line : redacted.getBytes(StandardCharsets.UTF_8);
    }
}
