package io.providermirror.server.warm;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.face.modules.ModuleDownload;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Warms a cache directory directly, with no server running on it (the core holds the directory's lock): the
 * mirror's own pull-through fetches and verifies, exactly as it would for a client. Archives already cached
 * are not fetched again.
 */
public final class CacheWarmTarget implements WarmTarget {

    private final MirrorWiring core;

    public CacheWarmTarget(MirrorWiring core) {
        this.core = core;
    }

    @Override
    public List<ProviderVersion> versions(ProviderAddress address) throws Exception {
        return core.mirror().allowedVersions(address).get();
    }

    @Override
    public Set<Platform> platforms(ProviderAddress address, ProviderVersion version) throws Exception {
        return core.mirror().release(address, version).get().platforms();
    }

    @Override
    public boolean warm(ProviderAddress address, ProviderVersion version, Platform platform, Progress progress)
            throws Exception {
        try (ArchiveSource source =
                core.mirror().archive(address, version, platform).get()) {
            if (source instanceof ArchiveSource.Cached || source instanceof ArchiveSource.Redirected) {
                return true;
            }
            ArchiveSource.Filling filling = (ArchiveSource.Filling) source;
            progress.started(filling.length().orElse(-1));
            while (true) {
                try {
                    filling.fill().completion().get(200, TimeUnit.MILLISECONDS);
                    progress.advanced(filling.fill().writtenBytes());
                    return false;
                } catch (TimeoutException stillFetching) {
                    progress.advanced(filling.fill().writtenBytes());
                }
            }
        }
    }

    @Override
    public List<ProviderVersion> moduleVersions(ModuleAddress address) throws Exception {
        return core.modules().allowedVersions(address).get();
    }

    @Override
    public boolean warmModule(ModuleAddress address, ProviderVersion version) throws Exception {
        boolean pinned = core.modules().pin(address, version).isPresent();
        ModuleDownload download = core.modules().download(address, version).get();
        if (download.passthrough().isPresent()) {
            throw new IOException("its source is passed through to clients (modules.passthroughUnsupported), "
                    + "not cached: " + download.passthrough().get());
        }
        try (ArchiveSource archive = core.modules()
                .archive(address, version, download.type().extension())
                .get()) {
            return pinned && (archive instanceof ArchiveSource.Cached || archive instanceof ArchiveSource.Redirected);
        }
    }

    @Override
    public void close() {
        core.close();
    }
}
