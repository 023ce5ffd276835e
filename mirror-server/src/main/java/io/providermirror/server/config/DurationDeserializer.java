package io.providermirror.server.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations as people write them in YAML: {@code 500ms}, {@code 30s}, {@code 15m}, {@code 2h}, {@code 1d}, or ISO-8601. */
final class DurationDeserializer extends StdScalarDeserializer<Duration> {

    private static final long serialVersionUID = 1L;
    private static final Pattern HUMAN = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)");

    DurationDeserializer() {
        super(Duration.class);
    }

    @Override
    public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        String text = parser.getValueAsString();
        if (text == null) {
            return (Duration) context.handleUnexpectedToken(Duration.class, parser);
        }
        return parse(text.trim(), context);
    }

    private Duration parse(String text, DeserializationContext context) throws IOException {
        Matcher m = HUMAN.matcher(text.toLowerCase(Locale.ROOT));
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            return (Duration) context.handleWeirdStringValue(
                    Duration.class, text, "expected a duration such as 30s, 15m, 2h or PT15M");
        }
    }
}
