package io.providermirror.server.config;

import io.providermirror.upstream.VersionConstraints;

/**
 * One allow or deny rule: a glob over {@code hostname/namespace/type} ({@code *} any characters within a
 * part, {@code ?} one character) and, optionally, a version constraint in Terraform's syntax.
 */
public record ProviderRule(String provider, String versions) {

    public ProviderRule {
        if (provider == null || provider.split("/", -1).length != 3
                || java.util.Arrays.stream(provider.split("/", -1)).anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("provider: '" + provider
                    + "' (expected: hostname/namespace/type, each part a glob such as registry.terraform.io/hashicorp/*)");
        }
        VersionConstraints.parse(versions);
    }
}
