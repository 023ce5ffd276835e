package io.providermirror.server.config;

import java.util.Map;

/**
 * Settings for registry modules: credentials for git hosts that module sources name ({@code gitHosts}, by
 * lowercase host name), whether sources the mirror cannot fetch (ssh git, {@code s3::}, ...) are handed to clients
 * unchanged ({@code passthroughUnsupported}), and the bounds on an unpacked module archive.
 */
public record ModulesConfig(
        Map<String, GitHostConfig> gitHosts,
        Boolean passthroughUnsupported,
        Integer maxArchiveEntries,
        DataSize maxUnpackedSize) {

    public ModulesConfig {
        gitHosts = gitHosts == null ? Map.of() : Map.copyOf(gitHosts);
        for (String host : gitHosts.keySet()) {
            if (!io.providermirror.model.ProviderAddress.isValidHostname(host)) {
                throw new IllegalArgumentException("gitHosts: '" + host
                        + "' (expected: a lowercase host name, optionally with :port, e.g. github.com)");
            }
        }
        passthroughUnsupported = passthroughUnsupported != null && passthroughUnsupported;
        maxArchiveEntries = maxArchiveEntries == null ? 20_000 : maxArchiveEntries;
        if (maxArchiveEntries <= 0) {
            throw new IllegalArgumentException(
                    "maxArchiveEntries: " + maxArchiveEntries + " (expected: a positive number of entries)");
        }
        maxUnpackedSize = maxUnpackedSize == null ? new DataSize(512L * 1024 * 1024) : maxUnpackedSize;
    }

    /** The defaults: no git credentials, no passthrough, 20,000 entries and 512 MiB unpacked. */
    public static ModulesConfig defaults() {
        return new ModulesConfig(null, null, null, null);
    }
}
