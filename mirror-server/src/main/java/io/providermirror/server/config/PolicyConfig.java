package io.providermirror.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.providermirror.model.Platform;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the mirror lets in: allow rules (when any are given, a provider must match one), deny rules (a match
 * refuses, whatever the allow rules say), and the platforms it serves (all when none are given); {@code modules}
 * holds the same two kinds of rules for registry modules. The release-age quarantine: versions younger than
 * {@code minimumReleaseAge} (or the first of {@code releaseAgeOverrides} that matches) are held back, a version of
 * unknown age as {@code unknownReleaseAge} says, except what {@code allowEarly} lets in; {@code releaseAgeMode}
 * {@code dryRun} only counts and logs what would be held.
 */
public record PolicyConfig(
        List<ProviderRule> allow,
        List<ProviderRule> deny,
        List<String> platforms,
        ModulePolicyConfig modules,
        Duration minimumReleaseAge,
        List<ReleaseAgeRule> releaseAgeOverrides,
        String unknownReleaseAge,
        String releaseAgeMode,
        List<AllowEarly> allowEarly) {

    @JsonCreator
    public PolicyConfig {
        allow = allow == null ? List.of() : List.copyOf(allow);
        deny = deny == null ? List.of() : List.copyOf(deny);
        platforms = platforms == null ? List.of() : List.copyOf(platforms);
        modules = modules == null ? new ModulePolicyConfig(null, null) : modules;
        minimumReleaseAge = minimumReleaseAge == null ? Duration.ZERO : minimumReleaseAge;
        releaseAgeOverrides = releaseAgeOverrides == null ? List.of() : List.copyOf(releaseAgeOverrides);
        unknownReleaseAge = unknownReleaseAge == null ? "allow" : unknownReleaseAge.toLowerCase(Locale.ROOT);
        releaseAgeMode = releaseAgeMode == null ? "enforce" : releaseAgeMode;
        allowEarly = allowEarly == null ? List.of() : List.copyOf(allowEarly);
        if (minimumReleaseAge.isNegative()) {
            throw new IllegalArgumentException(
                    "minimumReleaseAge: " + minimumReleaseAge + " (expected: a duration >= 0, such as 7d)");
        }
        if (!List.of("allow", "hold").contains(unknownReleaseAge)) {
            throw new IllegalArgumentException(
                    "unknownReleaseAge: '" + unknownReleaseAge + "' (expected: allow or hold)");
        }
        if (!List.of("enforce", "dryRun").contains(releaseAgeMode)) {
            throw new IllegalArgumentException(
                    "releaseAgeMode: '" + releaseAgeMode + "' (expected: enforce or dryRun)");
        }
        for (String platform : platforms) {
            try {
                Platform.parse(platform);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "platforms: '" + platform + "' (expected: os_arch such as linux_amd64)");
            }
        }
    }

    /** Rules and platforms only, no release-age quarantine. */
    public PolicyConfig(
            List<ProviderRule> allow, List<ProviderRule> deny, List<String> platforms, ModulePolicyConfig modules) {
        this(allow, deny, platforms, modules, null, null, null, null, null);
    }
}
