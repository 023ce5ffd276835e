package io.providermirror.server.tlog;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One decision that let something in or kept it out, as a log entry holds it: a kind and named values, none of them
 * secret (no tokens, no URLs with credentials or query strings). The log adds the time it was made.
 */
public record Decision(String kind, Map<String, Object> fields) {

    public Decision {
        fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /**
     * A provider release fetched from its origin and verified: its SHA256SUMS (by sha256) signed by the keys with
     * {@code signingKeys} (OpenPGP fingerprints; {@code unsigned} or {@code parent-mirror} where the policy or a
     * parent mirror vouched instead).
     */
    public static Decision releaseVerified(
            String provider,
            String version,
            java.util.List<String> signingKeys,
            java.util.List<String> shasumsSha256,
            java.util.List<String> platforms) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("provider", provider);
        fields.put("version", version);
        fields.put("signingKeys", java.util.List.copyOf(signingKeys));
        fields.put("shasumsSha256", java.util.List.copyOf(shasumsSha256));
        fields.put("platforms", java.util.List.copyOf(platforms));
        return new Decision("release.verified", fields);
    }

    /** A provider archive verified against its signed sha256 and committed to the cache. */
    public static Decision archiveCommitted(
            String provider, String version, String platform, String sha256, String h1) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("provider", provider);
        fields.put("version", version);
        fields.put("platform", platform);
        fields.put("zh", "zh:" + sha256);
        if (h1 != null) {
            fields.put("h1", h1);
        }
        return new Decision("archive.committed", fields);
    }

    /** A module version's content pinned at its first fetch: every later fetch must match it. */
    public static Decision modulePinned(
            String module, String version, String kind, String sha256, String commitId, String source) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("module", module);
        fields.put("version", version);
        fields.put("pinKind", kind);
        fields.put("sha256", sha256);
        if (!commitId.isEmpty()) {
            fields.put("commit", commitId);
        }
        fields.put("source", source);
        return new Decision("module.pinned", fields);
    }

    /** An operator released a module version's pin: its next fetch pins whatever the source then holds. */
    public static Decision modulePinReleased(String module, String version, String previous) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("module", module);
        fields.put("version", version);
        fields.put("previousPin", previous);
        return new Decision("module.pinReleased", fields);
    }

    /**
     * A bundle imported (each of its archives and pins is recorded on its own as well): the sha256 of the bundle
     * file, the provider and module versions it carried, and the archives and module versions the cache lacked.
     */
    public static Decision imported(
            String bundleSha256, int providerVersions, int moduleVersions, int newArchives, int newModuleVersions) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("bundleSha256", bundleSha256);
        fields.put("providerVersions", providerVersions);
        fields.put("moduleVersions", moduleVersions);
        fields.put("newArchives", newArchives);
        fields.put("newModuleVersions", newModuleVersions);
        return new Decision("bundle.imported", fields);
    }

    /** Something the policy kept out (a provider, module or version), with the rule's words. */
    public static Decision refused(String subject, String reason) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("subject", subject);
        fields.put("reason", reason);
        return new Decision("policy.refused", fields);
    }

    /** Something removed from the cache on purpose, and why. */
    public static Decision purged(String subject, String reason) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("subject", subject);
        fields.put("reason", reason);
        return new Decision("cache.purged", fields);
    }
}
