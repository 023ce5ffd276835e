package io.providermirror.server.config;

import java.util.Locale;

/** How the mirror writes its log: {@code text} lines for people, or {@code json} lines for log shippers. */
public record LoggingConfig(String format) {

    public static final String TEXT = "text";
    public static final String JSON = "json";

    public LoggingConfig {
        format = format == null ? TEXT : format.toLowerCase(Locale.ROOT);
        if (!format.equals(TEXT) && !format.equals(JSON)) {
            throw new IllegalArgumentException("format: '" + format + "' (expected: text or json)");
        }
    }

    public boolean json() {
        return format.equals(JSON);
    }
}
