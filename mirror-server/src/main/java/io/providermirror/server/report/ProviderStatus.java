package io.providermirror.server.report;

import java.time.Instant;
import java.util.List;

/**
 * One provider's cached versions, newest first, as the status page's view of it and {@code GET
 * /api/v1/status/providers/<hostname>/<namespace>/<type>} show them. Read from the cache; never asks an origin.
 */
public record ProviderStatus(String address, List<Version> versions) {

    public ProviderStatus {
        versions = List.copyOf(versions);
    }

    /**
     * A cached version. {@code verified} is false when the cache holds archives of it but not its verified release
     * ({@code verifiedAt} is then null and {@code signingKeys} and {@code platforms} empty). {@code signingKeys} are
     * key ids, or {@code unsigned} (as the origin's policy allows) or {@code parent-mirror} (hashes published by a
     * parent mirror).
     */
    public record Version(
            String version, boolean verified, Instant verifiedAt, List<String> signingKeys, List<Platform> platforms) {

        public Version {
            signingKeys = List.copyOf(signingKeys);
            platforms = List.copyOf(platforms);
        }
    }

    /**
     * A platform of the verified release: whether its archive is cached (then its size and when it was), and its
     * hashes ({@code h1:} once the archive was verified, {@code zh:} from the signed SHA256SUMS).
     */
    public record Platform(String platform, boolean cached, long bytes, Instant cachedAt, List<String> hashes) {

        public Platform {
            hashes = List.copyOf(hashes);
        }
    }
}
