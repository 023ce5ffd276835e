package io.providermirror.server.config;

import java.time.Duration;

/**
 * An override of {@code policy.minimumReleaseAge} ({@code policy.releaseAgeOverrides}): for the providers a
 * {@code provider} pattern matches, or the modules a {@code module} pattern matches (globs as in allow and deny
 * rules), the minimum age is {@code minimumAge}; {@code 0s} lets them in at once. A rule for a whole host is written
 * {@code provider: registry.example.com/*} followed by {@code /*} (every namespace and type). The first rule that matches wins.
 */
public record ReleaseAgeRule(String provider, String module, Duration minimumAge) {

    public ReleaseAgeRule {
        if ((provider == null) == (module == null)) {
            throw new IllegalArgumentException(
                    "releaseAgeOverrides: a rule names either a provider or a module pattern (expected: exactly one)");
        }
        if (provider != null) {
            provider = new ProviderRule(provider, null).provider();
        } else {
            module = new ModuleRule(module, null).module();
        }
        if (minimumAge == null || minimumAge.isNegative()) {
            throw new IllegalArgumentException(
                    "minimumAge: " + minimumAge + " (expected: a duration >= 0, such as 3d)");
        }
    }

    /** The rule's address pattern, {@code hostname/namespace/type} or {@code hostname/namespace/name/system}. */
    public String pattern() {
        return provider != null ? provider : module;
    }
}
