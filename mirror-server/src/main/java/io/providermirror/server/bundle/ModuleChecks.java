package io.providermirror.server.bundle;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.bundle.BundleImporter.RefusedException;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.ModulePin;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;

/**
 * Checks every registry module version of a read bundle: its pin and its module's version list are in the bundle,
 * its archive is the one the pin names (sha256 and size) and passes the limits on entries, sizes and names that
 * archives from origins pass, the mirror would serve it, and it agrees with what the cache pinned already: a pinned
 * version never changes, so a bundle that carries other content for it is refused, naming both. Any failure refuses
 * the whole bundle.
 */
final class ModuleChecks {

    /** A module version that passed: its pin, and whether the cache had pinned it already. */
    record CheckedModule(ModuleAddress address, ProviderVersion version, ModulePin pin, boolean pinnedAlready) {}

    private final MirrorWiring core;
    private final CacheDocuments cache;

    ModuleChecks(MirrorWiring core, CacheDocuments cache) {
        this.core = core;
        this.cache = cache;
    }

    /** Checks every module version of {@code contents}; {@code checked} receives each, in the manifest's order. */
    void check(BundleContents contents, List<CheckedModule> checked) throws IOException {
        CacheDocuments bundled = new CacheDocuments(contents.documents());
        for (BundleManifest.Module module : contents.manifest().modules()) {
            ModuleAddress address;
            ProviderVersion version;
            try {
                address = ModuleAddress.parse(module.module());
                version = ProviderVersion.parse(module.version())
                        .orElseThrow(() -> new IllegalArgumentException("version '" + module.version() + "'"));
            } catch (IllegalArgumentException e) {
                throw new RefusedException("the manifest names a module that is not one: " + e.getMessage());
            }
            String what = "module " + address + " " + version;
            Optional<String> unservable = core.modules().refusal(address, version);
            if (unservable.isPresent()) {
                throw new RefusedException(what + ": this mirror would never serve it (" + unservable.get()
                        + "), so it imports nothing of it");
            }
            ModulePin pin;
            try {
                pin = bundled.modulePin(address, version)
                        .orElseThrow(() -> new RefusedException(what + ": the bundle lacks its pin"));
            } catch (RefusedException e) {
                throw e;
            } catch (IOException e) {
                throw new RefusedException(what + ": its pin in the bundle is unreadable: " + e.getMessage());
            }
            requireVersionList(bundled, address, what);
            BundleContents.StagedArchive staged;
            try {
                io.providermirror.server.face.modules.ModuleMirror.archiveType(pin.archiveType());
                staged = contents.archives().get(CacheLayout.moduleArchive(address, version, pin.archiveType()));
            } catch (IllegalArgumentException e) {
                throw new RefusedException(what + ": its pin names an archive type that is not one");
            }
            if (staged == null) {
                throw new RefusedException(what + ": the bundle lacks its ." + pin.archiveType() + " archive");
            }
            if (!staged.sha256().equals(pin.sha256()) || staged.size() != pin.size()) {
                throw new RefusedException(what + ": its archive (sha256 " + staged.sha256() + ", " + staged.size()
                        + " bytes) is not the one its pin names (sha256 " + pin.sha256() + ", " + pin.size()
                        + " bytes)");
            }
            try (SeekableByteChannel archive = staged.write().openReader()) {
                Optional<String> problem = core.modules().archiveProblem(archive, pin.archiveType());
                if (problem.isPresent()) {
                    throw new RefusedException(what + ": its archive is refused: " + problem.get());
                }
            }
            Optional<ModulePin> stored = cache.modulePin(address, version).filter(p -> !p.accepting());
            if (stored.isPresent() && !samePinnedContent(stored.get(), pin)) {
                throw new RefusedException(
                        what + ": this cache pinned " + stored.get().identity() + " ("
                                + stored.get().source() + ", " + stored.get().pinnedAt() + ") but the bundle carries "
                                + pin.identity() + " (" + pin.source() + "); the cached pin stays and nothing of the "
                                + "bundle was imported");
            }
            checked.add(new CheckedModule(address, version, pin.withoutAcceptance(), stored.isPresent()));
        }
    }

    /** The bundle's version list of the module, which import merges as it merges providers' lists. */
    private static void requireVersionList(CacheDocuments bundled, ModuleAddress address, String what)
            throws RefusedException {
        try {
            if (bundled.moduleVersionList(address).isEmpty()) {
                throw new RefusedException(what + ": the bundle lacks the module's version list (a bundle written "
                        + "before bundles carried them; export it again)");
            }
        } catch (RefusedException e) {
            throw e;
        } catch (IOException e) {
            throw new RefusedException(what + ": its version list in the bundle is unreadable: " + e.getMessage());
        }
    }

    private static boolean samePinnedContent(ModulePin stored, ModulePin bundled) {
        return stored.kind().equals(bundled.kind())
                && stored.sha256().equals(bundled.sha256())
                && stored.commitId().equals(bundled.commitId())
                && stored.subdirectory().equals(bundled.subdirectory());
    }
}
