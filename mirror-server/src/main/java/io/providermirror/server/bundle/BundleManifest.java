package io.providermirror.server.bundle;

import java.util.List;

/**
 * The first entry of a bundle: every other entry with its size and sha256 (so a truncated or altered
 * bundle is caught before anything is trusted), the releases it carries, and the registry module versions.
 */
public record BundleManifest(
        int format, String created, String tool, List<Entry> entries, List<Release> releases, List<Module> modules) {

    /** The version of this layout; an importer refuses others. */
    public static final int FORMAT = 1;
    /** The manifest's path in the tar. */
    public static final String PATH = "provider-mirror-bundle.json";

    public BundleManifest {
        entries = List.copyOf(entries);
        releases = List.copyOf(releases);
        // Bundles written before modules were carried have none.
        modules = modules == null ? List.of() : List.copyOf(modules);
    }

    /** One file of the bundle. */
    public record Entry(String path, long size, String sha256) {}

    /** A registry module version ({@code hostname/namespace/name/system}) whose archive and pin the bundle holds. */
    public record Module(String module, String version) {}

    /** A provider version and the platforms whose archives the bundle holds. */
    public record Release(String provider, String version, List<String> platforms) {
        public Release {
            platforms = List.copyOf(platforms);
        }
    }
}
