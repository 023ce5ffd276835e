package io.providermirror.server.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.providermirror.model.Urls;

/**
 * {@code %msg} for every logger, made safe to write as one line: control characters (CR, LF, ESC and the rest
 * of C0 and C1, DEL, the Unicode line and paragraph separators) are escaped as a backslash, {@code x} and two
 * hex digits (four after {@code u} above 0xff), so text from an origin (file names, error messages) cannot
 * forge log lines or send terminal escapes; and URLs lose their query strings ({@link Urls#redactedIn}),
 * which for pre-signed download URLs are credentials. Installed by {@link LogFormats} as the {@code msg}
 * conversion word.
 */
public class EscapedMessageConverter extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return escaped(Urls.redactedIn(event.getFormattedMessage()), false);
    }

    /**
     * {@code text} with its control characters escaped. With {@code stackTrace}, a line feed stays when what
     * follows is a stack trace's own line (a tab-indented frame, or {@code Caused by:}), so a throwable still
     * reads as usual and every line it adds starts so that it cannot pass for a log line of its own.
     */
    static String escaped(String text, boolean stackTrace) {
        if (text == null) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029';
            if (control && stackTrace && (c == '\t' || c == '\n' && stackTraceLineFollows(text, i + 1))) {
                control = false;
            }
            if (control && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (control) {
                    out.append(c <= 0xff ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }

    private static boolean stackTraceLineFollows(String text, int start) {
        return start < text.length() && text.charAt(start) == '\t'
                || text.startsWith("Caused by: ", start)
                || text.startsWith("Wrapped by: ", start)
                || start == text.length();
    }
}
