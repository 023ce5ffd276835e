package io.providermirror.testkit;

import java.util.List;
import java.util.Map;

/**
 * One registry module of each kind of source the CLI installs, published in the {@code corp} namespace: {@code
 * tarball} (a tar.gz at an absolute URL), {@code subdir} (a tar.gz at a relative URL with a {@code //modules/inner}
 * subdirectory), {@code gitmod} (an annotated git tag) and {@code gitsub} (a lightweight git tag with a
 * subdirectory, and a commit after it). Each module's output {@code version} says its name, its version and whether
 * it is its source's root or the module in {@code modules/inner}, so the outputs prove what was installed.
 */
public final class SampleModules {

    /** The modules' names, each {@code corp/<name>/generic}. */
    public static final List<String> NAMES = List.of("tarball", "subdir", "gitmod", "gitsub");

    /** The outputs of a configuration calling each at 1.0.0 ({@code gitsub} at 2.0.0). */
    public static final Map<String, String> OUTPUTS = Map.of(
            "tarball", "tarball 1.0.0 root",
            "subdir", "subdir 1.0.0 inner",
            "gitmod", "gitmod v1.0.0 root",
            "gitsub", "gitsub v2.0.0 inner");

    private SampleModules() {}

    /**
     * Publishes the four on {@code registry} and {@code git}: {@code tarball} at 1.0.0 and at {@code tarballDecoy},
     * {@code subdir} at 1.0.0, {@code gitmod} at 1.0.0 and 1.1.0, {@code gitsub} at 2.0.0.
     */
    public static void publish(FakeModuleRegistry registry, GitHttpServer git, String tarballDecoy) {
        registry.serveArchive("/archives/tarball-1.0.0.tar.gz", ModuleArchives.tarGz(module("tarball", "1.0.0")));
        registry.serveArchive(
                "/archives/tarball-" + tarballDecoy + ".tar.gz", ModuleArchives.tarGz(module("tarball", tarballDecoy)));
        registry.publish(
                "corp",
                "tarball",
                "generic",
                "1.0.0",
                registry.archiveUrl("/archives/tarball-1.0.0.tar.gz").toString());
        registry.publish("corp", "tarball", "generic", tarballDecoy, "/archives/tarball-" + tarballDecoy + ".tar.gz");
        registry.serveArchive("/archives/subdir-1.0.0.tar.gz", ModuleArchives.tarGz(nested("subdir", "1.0.0")));
        // Relative, resolved against the download URL as the CLI does, with a go-getter subdirectory.
        registry.publish(
                "corp", "subdir", "generic", "1.0.0", "../../../../../../archives/subdir-1.0.0.tar.gz//modules/inner");

        GitRepository gitmod = git.createRepository("gitmod");
        gitmod.tag("v1.0.0", gitmod.commit(module("gitmod", "v1.0.0"), "v1"), true);
        gitmod.tag("v1.1.0", gitmod.commit(module("gitmod", "v1.1.0"), "v1.1"), true);
        registry.publish("corp", "gitmod", "generic", "1.0.0", "git::" + gitmod.url() + "?ref=v1.0.0");
        registry.publish("corp", "gitmod", "generic", "1.1.0", "git::" + gitmod.url() + "?ref=v1.1.0");

        GitRepository gitsub = git.createRepository("gitsub");
        gitsub.tag("v2.0.0", gitsub.commit(nested("gitsub", "v2.0.0"), "v2"), false);
        gitsub.commit(nested("gitsub", "main"), "after the tag");
        registry.publish("corp", "gitsub", "generic", "2.0.0", "git::" + gitsub.url() + "//modules/inner?ref=v2.0.0");
    }

    /** A module whose output {@code version} says its name, its version and that it is the root of its source. */
    public static Map<String, String> module(String name, String version) {
        return Map.of("main.tf", "output \"version\" {\n  value = \"" + name + " " + version + " root\"\n}\n");
    }

    /** A source whose module is in {@code modules/inner}, with a decoy at its root. */
    public static Map<String, String> nested(String name, String version) {
        return Map.of(
                "main.tf",
                "output \"version\" {\n  value = \"" + name + " " + version + " root\"\n}\n",
                "modules/inner/main.tf",
                "output \"version\" {\n  value = \"" + name + " " + version + " inner\"\n}\n");
    }
}
