package io.providermirror.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A provider version in the canonical form the CLI requests it in ({@code 1.2} becomes {@code 1.2.0}).
 * Only semantic versions are versions here; {@code v1.2.3} and other spellings are rejected, as the CLI
 * skips them.
 */
public record ProviderVersion(String canonical) implements Comparable<ProviderVersion> {

    private static final String NUMBER = "(0|[1-9][0-9]{0,8})";
    private static final String TAIL = "(-[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?(\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?";
    private static final Pattern LENIENT =
            Pattern.compile(NUMBER + "(?:\\." + NUMBER + ")?(?:\\." + NUMBER + ")?" + TAIL);
    private static final Pattern CANONICAL = Pattern.compile(NUMBER + "\\." + NUMBER + "\\." + NUMBER + TAIL);
    private static final int MAX_LENGTH = 128;

    public ProviderVersion {
        if (canonical == null
                || canonical.length() > MAX_LENGTH
                || !CANONICAL.matcher(canonical).matches()) {
            throw new IllegalArgumentException(
                    "version: '" + canonical + "' (expected: a semantic version such as 1.2.3)");
        }
    }

    /** Parses a version as an origin or a client spells it, or returns empty when it is not semver. */
    public static Optional<ProviderVersion> parse(String text) {
        if (text == null || text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        Matcher m = LENIENT.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        String canonical = m.group(1) + "." + (m.group(2) == null ? "0" : m.group(2)) + "."
                + (m.group(3) == null ? "0" : m.group(3))
                + (m.group(4) == null ? "" : m.group(4)) + (m.group(5) == null ? "" : m.group(5));
        return canonical.length() > MAX_LENGTH ? Optional.empty() : Optional.of(new ProviderVersion(canonical));
    }

    /** The major, minor and patch numbers. */
    public int[] numbers() {
        String core = canonical.split("[-+]", 2)[0];
        String[] parts = core.split("\\.");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    /** The pre-release part ({@code beta.1} of {@code 1.2.3-beta.1}), or empty. */
    public String prerelease() {
        String withoutBuild = canonical.split("\\+", 2)[0];
        int dash = withoutBuild.indexOf('-');
        return dash < 0 ? "" : withoutBuild.substring(dash + 1);
    }

    /**
     * This version without its build metadata ({@code 1.2.3} of {@code 1.2.3+build.5}): the CLI's version matching
     * ignores build metadata, so versions that differ only there are one version to it.
     */
    public ProviderVersion withoutBuildMetadata() {
        int plus = canonical.indexOf('+');
        return plus < 0 ? this : new ProviderVersion(canonical.substring(0, plus));
    }

    public boolean isPrerelease() {
        return !prerelease().isEmpty();
    }

    /** Semantic-version precedence: numbers, then a pre-release before its release; build metadata is ignored. */
    @Override
    public int compareTo(ProviderVersion other) {
        int[] a = numbers();
        int[] b = other.numbers();
        for (int i = 0; i < 3; i++) {
            if (a[i] != b[i]) {
                return Integer.compare(a[i], b[i]);
            }
        }
        String x = prerelease();
        String y = other.prerelease();
        if (x.isEmpty() || y.isEmpty()) {
            return Boolean.compare(x.isEmpty(), y.isEmpty());
        }
        String[] xs = x.split("\\.");
        String[] ys = y.split("\\.");
        for (int i = 0; i < Math.min(xs.length, ys.length); i++) {
            boolean xNumeric = xs[i].chars().allMatch(Character::isDigit);
            boolean yNumeric = ys[i].chars().allMatch(Character::isDigit);
            int c = xNumeric && yNumeric
                    ? new java.math.BigInteger(xs[i]).compareTo(new java.math.BigInteger(ys[i]))
                    : xNumeric ? -1 : yNumeric ? 1 : xs[i].compareTo(ys[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(xs.length, ys.length);
    }

    @Override
    public String toString() {
        return canonical;
    }
}
