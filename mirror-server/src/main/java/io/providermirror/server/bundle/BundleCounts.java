package io.providermirror.server.bundle;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a bundle carries, counted from its manifest: the one count {@code export} prints for the bundle it wrote and
 * {@code import} for the bundle it read, in the same words, so the two lines can be compared at a glance.
 *
 * @param platforms the platforms of the provider archives, sorted
 */
public record BundleCounts(
        int providers, int providerVersions, int archives, List<String> platforms, int modules, int moduleVersions) {

    public BundleCounts {
        platforms = List.copyOf(platforms);
    }

    /** The counts of what {@code manifest} lists. */
    public static BundleCounts of(BundleManifest manifest) {
        Set<String> providers = new TreeSet<>();
        Set<String> platforms = new TreeSet<>();
        int archives = 0;
        for (BundleManifest.Release release : manifest.releases()) {
            providers.add(release.provider());
            platforms.addAll(release.platforms());
            archives += release.platforms().size();
        }
        Set<String> modules = new TreeSet<>();
        manifest.modules().forEach(module -> modules.add(module.module()));
        return new BundleCounts(
                providers.size(),
                manifest.releases().size(),
                archives,
                List.copyOf(platforms),
                modules.size(),
                manifest.modules().size());
    }

    /**
     * For people: {@code 1 provider(s), 2 provider version(s), 4 archive(s) for darwin_arm64, linux_amd64; 4 module(s),
     * 4 module version(s)}.
     */
    public String describe() {
        return providers + " provider(s), " + providerVersions + " provider version(s), " + archives + " archive(s)"
                + (platforms.isEmpty() ? "" : " for " + String.join(", ", platforms)) + "; " + modules + " module(s), "
                + moduleVersions + " module version(s)";
    }
}
