package io.providermirror.server.warm;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.MirrorCore;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.RenderedDocument;
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

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MirrorCore core;

    public CacheWarmTarget(MirrorCore core) {
        this.core = core;
    }

    @Override
    public List<ProviderVersion> versions(ProviderAddress address) throws Exception {
        return listedVersions(core.mirror().versionIndex(address).get());
    }

    @Override
    public Set<Platform> platforms(ProviderAddress address, ProviderVersion version) throws Exception {
        return servedPlatforms(core.mirror().versionDocument(address, version).get());
    }

    // The two methods below read back the JSON the mirror has just rendered for a client: they are the only
    // place to change (to ProviderMirror's typed queries) once it offers them.

    /** The versions the mirror's rendered {@code index.json} lists. */
    private static List<ProviderVersion> listedVersions(RenderedDocument index) throws IOException {
        return MirrorProtocolDocuments.versions(JSON.readTree(index.json()));
    }

    /** The platforms the mirror's rendered version document has archives for. */
    private static Set<Platform> servedPlatforms(RenderedDocument versionDocument) throws IOException {
        return MirrorProtocolDocuments.platforms(JSON.readTree(versionDocument.json()));
    }

    @Override
    public boolean warm(ProviderAddress address, ProviderVersion version, Platform platform, Progress progress)
            throws Exception {
        try (ArchiveSource source = core.mirror().archive(address, version, platform).get()) {
            if (source instanceof ArchiveSource.Cached) {
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
    public void close() {
        core.close();
    }
}
