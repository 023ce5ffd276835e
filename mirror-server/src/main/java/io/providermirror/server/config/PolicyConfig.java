package io.providermirror.server.config;

import io.providermirror.model.Platform;
import java.util.List;

/**
 * What the mirror lets in: allow rules (when any are given, a provider must match one), deny rules (a match
 * refuses, whatever the allow rules say), and the platforms it serves (all when none are given); {@code modules}
 * holds the same two kinds of rules for registry modules.
 */
public record PolicyConfig(
        List<ProviderRule> allow, List<ProviderRule> deny, List<String> platforms, ModulePolicyConfig modules) {

    public PolicyConfig {
        allow = allow == null ? List.of() : List.copyOf(allow);
        deny = deny == null ? List.of() : List.copyOf(deny);
        platforms = platforms == null ? List.of() : List.copyOf(platforms);
        modules = modules == null ? new ModulePolicyConfig(null, null) : modules;
        for (String platform : platforms) {
            try {
                Platform.parse(platform);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "platforms: '" + platform + "' (expected: os_arch such as linux_amd64)");
            }
        }
    }
}
