package io.providermirror.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A version constraint in Terraform's syntax: comma-separated conditions that must all hold, each an
 * operator ({@code =}, {@code !=}, {@code >}, {@code >=}, {@code <}, {@code <=}, {@code ~>}; none means
 * {@code =}) and a version. {@code ~> 1.2} allows 1.2 and later 1.x; {@code ~> 1.2.3} allows later 1.2.x.
 * As in the CLI, a pre-release version matches only a constraint that names it exactly.
 */
public record VersionConstraints(String text, List<Condition> conditions) {

    /** One operator and its version; {@code specified} is how many numbers the version was written with. */
    public record Condition(String operator, ProviderVersion version, int specified) {
        boolean matches(ProviderVersion candidate) {
            int c = candidate.compareTo(version);
            return switch (operator) {
                case "=" -> c == 0;
                case "!=" -> c != 0;
                case ">" -> c > 0;
                case ">=" -> c >= 0;
                case "<" -> c < 0;
                case "<=" -> c <= 0;
                case "~>" -> c >= 0 && withinPessimisticBound(candidate);
                default -> throw new IllegalStateException(operator);
            };
        }

        private boolean withinPessimisticBound(ProviderVersion candidate) {
            if (specified <= 1) {
                return true;
            }
            int[] bound = version.numbers();
            int[] numbers = candidate.numbers();
            for (int i = 0; i < specified - 1; i++) {
                if (numbers[i] != bound[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Any version that is not a pre-release. */
    public static final VersionConstraints ANY = new VersionConstraints("", List.of());

    private static final Pattern CONDITION =
            Pattern.compile("\\s*(=|!=|>=|<=|>|<|~>)?\\s*(v?[0-9][0-9A-Za-z.+-]*)\\s*");

    public VersionConstraints {
        conditions = List.copyOf(conditions);
    }

    /**
     * Parses a constraint; an empty or blank text allows every release.
     *
     * @throws IllegalArgumentException naming the part that is not a condition
     */
    public static VersionConstraints parse(String text) {
        if (text == null || text.isBlank()) {
            return ANY;
        }
        List<Condition> conditions = new ArrayList<>();
        for (String part : text.split(",")) {
            Matcher m = CONDITION.matcher(part);
            Optional<ProviderVersion> version = m.matches() ? ProviderVersion.parse(m.group(2)) : Optional.empty();
            if (version.isEmpty()) {
                throw new IllegalArgumentException("'" + part.trim() + "' in version constraint '" + text
                        + "' (expected: an operator =, !=, >, >=, <, <=, ~> and a version such as 1.2.3)");
            }
            String core = m.group(2).split("[-+]", 2)[0];
            conditions.add(
                    new Condition(m.group(1) == null ? "=" : m.group(1), version.get(), core.split("\\.").length));
        }
        return new VersionConstraints(text.trim(), conditions);
    }

    public boolean matches(ProviderVersion candidate) {
        if (candidate.isPrerelease()
                && conditions.stream()
                        .noneMatch(c -> c.operator().equals("=") && c.version().equals(candidate))) {
            return false;
        }
        return conditions.stream().allMatch(c -> c.matches(candidate));
    }

    @Override
    public String toString() {
        return text.isEmpty() ? "any version" : text;
    }
}
