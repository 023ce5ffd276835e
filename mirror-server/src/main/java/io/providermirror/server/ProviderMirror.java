package io.providermirror.server;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FillRegistry;
import io.providermirror.upstream.Platform;
import io.providermirror.upstream.ProviderAddress;
import io.providermirror.upstream.ProviderVersion;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.ServiceDiscovery;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The pull-through mirror as plain Java: the three questions of the network mirror protocol, answered from
 * the cache when it can, and from the origin (verified, then cached) when it must. Failures complete the
 * futures with an {@link io.providermirror.upstream.OriginException} whose reason says what kind of failure
 * it is and whose message names the provider and the origin.
 */
public final class ProviderMirror {

    /** Tunables of the pull-through behaviour; {@code offline} serves the cache only. */
    public record Settings(Duration indexTtl, long maxArchiveBytes, boolean offline) {
    }

    private final VersionIndexes indexes;
    private final Releases releases;
    private final Archives archives;

    public ProviderMirror(Settings settings, ServiceDiscovery discovery, RegistryClient registry, BlobStore blobs,
                          DocumentStore documents, Executor executor, Clock clock) {
        OriginRegistries origins = new OriginRegistries(discovery, documents, settings.indexTtl().isZero()
                ? Duration.ofSeconds(1) : settings.indexTtl());
        this.indexes = new VersionIndexes(origins, registry, documents, executor, clock, settings.indexTtl(),
                !settings.offline());
        this.releases = new Releases(indexes, origins, registry, documents, executor);
        this.archives = new Archives(releases, registry, blobs, new FillRegistry(blobs), executor,
                settings.maxArchiveBytes());
    }

    /** {@code index.json}: every semver version the origin lists. */
    public CompletableFuture<RenderedDocument> versionIndex(ProviderAddress address) {
        return indexes.get(address).thenApply(VersionIndexes.Entry::index);
    }

    /** {@code <version>.json}: every platform of a verified version, with {@code zh:} and known {@code h1:}. */
    public CompletableFuture<RenderedDocument> versionDocument(ProviderAddress address, ProviderVersion version) {
        return releases.get(address, version).thenApply(Releases.Entry::document);
    }

    /** The archive: from disk when cached, else following its fill from the origin. */
    public CompletableFuture<ArchiveSource> archive(ProviderAddress address, ProviderVersion version, Platform platform) {
        return archives.get(address, version, platform);
    }
}
