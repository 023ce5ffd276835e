package io.providermirror.server.config;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An amount of bytes as people write it: {@code 1048576}, {@code 500MB}, {@code 50GiB} (KB = 1000, KiB = 1024). */
public record DataSize(long bytes) {

    private static final Pattern TEXT = Pattern.compile("(\\d{1,19})\\s*([kmgt]i?b|b)?");

    public DataSize {
        if (bytes <= 0) {
            throw new IllegalArgumentException("size: " + bytes + " (expected: > 0)");
        }
    }

    /** An amount of bytes for people to read: {@code 512 B}, {@code 1.5 MiB}, {@code 48.0 GiB}. */
    public static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** Parses a size, or returns empty when the text is not one. */
    public static Optional<DataSize> parse(String text) {
        Matcher m = TEXT.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return Optional.empty();
        }
        String unit = m.group(2) == null ? "b" : m.group(2);
        long multiplier = switch (unit) {
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            case "tib" -> 1L << 40;
            default -> 1L;
        };
        try {
            long bytes = Math.multiplyExact(Long.parseLong(m.group(1)), multiplier);
            return bytes > 0 ? Optional.of(new DataSize(bytes)) : Optional.empty();
        } catch (ArithmeticException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
