package io.providermirror.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.providermirror.model.VersionConstraints;

/**
 * One allow or deny rule: a glob over {@code hostname/namespace/type} ({@code *} any characters within a
 * part, {@code ?} one character) and, optionally, a version constraint in Terraform's syntax. As in the CLI,
 * {@code namespace/type} alone means {@code registry.terraform.io/namespace/type}; a rule without a version
 * constraint may be written as the bare provider pattern ({@code - hashicorp/*}).
 * A deny rule's {@code reason} ("breaks IAM") is part of every refusal it makes.
 */
public record ProviderRule(String provider, String versions, String reason) {

    /** The hostname the CLI assumes when a provider address names none. */
    public static final String DEFAULT_HOSTNAME = "registry.terraform.io";

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public ProviderRule {
        String[] parts = provider == null ? new String[0] : provider.split("/", -1);
        if (parts.length == 2) {
            provider = DEFAULT_HOSTNAME + "/" + provider;
            parts = provider.split("/", -1);
        }
        if (parts.length != 3 || java.util.Arrays.stream(parts).anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("provider: '" + provider + "' (expected: hostname/namespace/type or "
                    + "namespace/type, each part a glob such as registry.terraform.io/hashicorp/* or hashicorp/*)");
        }
        try {
            VersionConstraints.parse(versions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "versions: '" + versions + "' is not a version constraint (expected: "
                            + "Terraform's syntax, such as \">= 5.0, < 6.0\" or \"~> 5.80\"): " + e.getMessage(),
                    e);
        }
    }

    /** A rule without a reason. */
    public ProviderRule(String provider, String versions) {
        this(provider, versions, null);
    }

    /** The short form of a rule: only the provider pattern, every version. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static ProviderRule of(String provider) {
        return new ProviderRule(provider, null, null);
    }
}
