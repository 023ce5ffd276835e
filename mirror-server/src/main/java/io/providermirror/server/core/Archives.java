package io.providermirror.server.core;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FillRegistry;
import io.providermirror.cache.InsufficientStorageException;
import io.providermirror.cache.StoredBlob;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.PackageHashes;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.VerificationException;
import io.providermirror.upstream.VerifiedPackage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Provider archives: served from the blob store when committed; otherwise fetched from the origin into a
 * fill that every concurrent request follows, verified against the signed sha256, and committed only then.
 */
final class Archives {

    private static final Logger LOG = LoggerFactory.getLogger(Archives.class);
    private static final int BUFFER_SIZE = 256 * 1024;

    private final Releases releases;
    private final RegistryClient registry;
    private final BlobStore blobs;
    private final FillRegistry fills;
    private final Executor executor;
    /** Runs the downloads themselves, at most {@link FillBounds#maxConcurrent()} at once. */
    private final Executor fillExecutor;
    private final FillBounds bounds;
    private final FillPermits permits;
    private final long maxArchiveBytes;
    private final MirrorMetrics metrics;
    private final VersionIndexes indexes;
    private final OriginRegistries origins;
    private final ParentMirrorClient parents;
    private final OriginRules rules;
    /** What an expired or withdrawn download URL answers. */
    private static final java.util.Set<Integer> STALE_URL_STATUSES = java.util.Set.of(401, 403, 404, 410);

    private final BackgroundHashes hashes = new BackgroundHashes();

    /** Waits, at most {@code timeout}, for the {@code h1:} hashes of archives just committed to be stored. */
    boolean awaitBackgroundHashes(java.time.Duration timeout) throws InterruptedException {
        return hashes.awaitNone(timeout);
    }

    Archives(Releases releases, VersionIndexes indexes, OriginRegistries origins, Upstream upstream, OriginRules rules,
             BlobStore blobs, FillRegistry fills, Executor executor, Executor fillExecutor, FillBounds bounds,
             long maxArchiveBytes, MirrorMetrics metrics) {
        this.fillExecutor = fillExecutor;
        this.bounds = bounds;
        this.permits = new FillPermits(bounds, metrics);
        this.parents = upstream.parents();
        this.rules = rules;
        RegistryClient registry = upstream.registry();
        this.metrics = metrics;
        this.indexes = indexes;
        this.origins = origins;
        this.releases = releases;
        this.registry = registry;
        this.blobs = blobs;
        this.fills = fills;
        this.executor = executor;
        this.maxArchiveBytes = maxArchiveBytes;
    }

    CompletableFuture<ArchiveSource> get(ProviderAddress address, ProviderVersion version, Platform platform) {
        CacheKey key = CacheLayout.archive(address, version, platform);
        Optional<ArchiveSource> verified = openVerified(key);
        if (verified.isPresent()) {
            // Hot path, on the caller's (event loop) thread: a warm archive needs one open(2), as in nginx.
            metrics.cacheLookup(MirrorMetrics.LookupKind.ARCHIVE, MirrorMetrics.LookupResult.HIT);
            return CompletableFuture.completedFuture(verified.get());
        }
        return CompletableFuture.supplyAsync(() -> findCached(key), executor)
                .thenCompose(cached -> {
                    metrics.cacheLookup(MirrorMetrics.LookupKind.ARCHIVE, cached.isPresent()
                            ? MirrorMetrics.LookupResult.HIT : MirrorMetrics.LookupResult.MISS);
                    return cached.isPresent()
                            ? CompletableFuture.completedFuture(cached.get())
                            : fetch(key, address, version, platform);
                });
    }

    private Optional<ArchiveSource> openVerified(CacheKey key) {
        try {
            return blobs.openVerified(key).map(ArchiveSource.Cached::new);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private Optional<ArchiveSource> findCached(CacheKey key) {
        try {
            return blobs.open(key).map(ArchiveSource.Cached::new);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cached archive " + key, e);
        }
    }

    private CompletableFuture<ArchiveSource> fetch(CacheKey key, ProviderAddress address, ProviderVersion version,
                                                   Platform platform) {
        return releases.get(address, version).thenCompose(entry -> {
            VerifiedPackage pkg = entry.release().find(platform).orElseThrow(() -> new OriginException(
                    OriginException.Reason.NOT_FOUND, address + " " + version + " is not available for " + platform));
            String what = "the archive of " + address + " " + version + " " + platform;
            // Joining a download in progress costs nothing more; starting one needs a place (taken here when the
            // download ended between the two looks).
            FillPermits.Permit permit = fills.inProgress(key) ? null : permits.acquire(address.hostname(), what);
            Optional<FillRegistry.Joined> joined;
            try {
                joined = fills.joinOrStart(key, fill -> {
                    FillPermits.Permit place = permit != null ? permit : permits.acquire(address.hostname(), what);
                    // The place is free once the archive is committed or failed, before its last byte reaches a
                    // client (recording its h1: hash afterwards holds no socket or temporary file).
                    fill.completion().whenComplete((blob, failure) -> place.close());
                    fillExecutor.execute(() -> {
                        try (place) {
                            runFill(fill, address, version, pkg);
                        }
                    });
                });
            } catch (InsufficientStorageException e) {
                closeQuietly(permit);
                metrics.refused("disk", address.hostname());
                LOG.error("not fetching {} from {}: {}", what, origins.describe(address.hostname()), e.getMessage());
                throw new CapacityException(CapacityException.Limit.DISK, "the mirror has no room in its cache for "
                        + what + " from " + address.hostname() + ": " + e.getMessage()
                        + ". An operator must free disk space or lower cache.minFreeSpace", FillPermits.RETRY_AFTER);
            } catch (IOException e) {
                closeQuietly(permit);
                throw cacheWriteFailed(address + " " + version + " " + platform, e);
            } catch (RuntimeException e) {
                closeQuietly(permit);
                throw e;
            }
            if (joined.isEmpty() || !joined.get().started()) {
                closeQuietly(permit);
            }
            if (joined.isEmpty()) {
                // Committed by a fill that ended since this request looked.
                return CompletableFuture.supplyAsync(() -> findCached(key).orElseThrow(() -> new OriginException(
                        OriginException.Reason.UNAVAILABLE, "the archive of " + address + " " + version + " "
                        + platform + " vanished from the cache as it was committed; try again")), executor);
            }
            ArchiveFill fill = joined.get().fill();
            return fill.started().thenApplyAsync(length -> follow(fill, length), executor);
        });
    }

    /** Opens a reader on the fill; a fill that already failed answers with its failure instead. */
    private static ArchiveSource follow(ArchiveFill fill, OptionalLong length) {
        java.nio.channels.SeekableByteChannel reader = null;
        try {
            reader = fill.openReader();
        } catch (IOException e) {
            if (fill.failure().isEmpty()) {
                throw new UncheckedIOException("cannot read archive " + fill.key() + " while it is fetched", e);
            }
        }
        Optional<Throwable> failure = fill.failure();
        if (failure.isPresent()) {
            closeQuietly(reader);
            throw failure.get() instanceof RuntimeException runtime ? runtime
                    : new java.util.concurrent.CompletionException(failure.get());
        }
        return new ArchiveSource.Filling(fill, length, reader);
    }

    private static void closeQuietly(FillPermits.Permit permit) {
        if (permit != null) {
            permit.close();
        }
    }

    private static void closeQuietly(java.nio.channels.SeekableByteChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Nothing was read from it.
            }
        }
    }

    private void runFill(ArchiveFill fill, ProviderAddress address, ProviderVersion version, VerifiedPackage pkg) {
        String what = address + " " + version + " " + pkg.platform();
        String origin = pkg.downloadUrl().getAuthority();
        // upstream.archiveTimeout counts from here: renewing an expired download URL is part of the download.
        long deadline = System.nanoTime() + bounds.deadline().toNanos();
        // Waiting for the response is bounded by upstream.requestTimeout; each read of the body by readTimeout.
        try (OriginHttpClient.ArchiveStream stream = openArchive(address, version, pkg, what, deadline)) {
            OptionalLong announced = stream.contentLength();
            if (announced.isPresent() && announced.getAsLong() > maxArchiveBytes) {
                throw new OriginException(OriginException.Reason.BAD_RESPONSE, "the archive of " + what + " from "
                        + origin + " is " + announced.getAsLong() + " bytes, more than upstream.maxArchiveBytes ("
                        + maxArchiveBytes + ")");
            }
            fill.begin(announced);
            String sha256 = copy(stream.body(), fill, announced, what, origin, pkg.downloadUrl().getHost(), deadline);
            String h1 = verify(pkg, sha256, fill, what, origin);
            StoredBlob blob;
            // Clients are answered at the commit; the h1: that follows is awaited by a closing mirror.
            hashes.begin();
            try {
                try {
                    blob = fill.commit(sha256);
                } catch (IOException e) {
                    throw cacheWriteFailed(what, e);
                }
                LOG.info("cached {} from {} ({} bytes, sha256 {})", what, origin, blob.size(), sha256);
                if (h1 != null) {
                    releases.recordH1(address, version, pkg.platform(), h1);
                } else {
                    recordH1(address, version, pkg.platform(), fill);
                }
            } finally {
                hashes.end();
            }
        } catch (VerificationException e) {
            LOG.error("refusing the archive of {} from {}: {} check failed: {}", what, origin, e.check(), e.getMessage());
            metrics.verificationFailure(address.hostname(), e.check().name(), what, e.getMessage());
            fill.fail(e);
        } catch (OriginException e) {
            LOG.warn("fetching the archive of {} from {} failed: {}", what, origin, e.getMessage());
            fill.fail(e);
        } catch (CacheWriteException e) {
            LOG.error("{}", e.getMessage());
            fill.fail(e);
        } catch (IOException | RuntimeException e) {
            if (e instanceof java.net.SocketTimeoutException) {
                OriginException stalled = new OriginException(OriginException.Reason.TIMEOUT, "the archive of " + what
                        + " from " + origin + " stalled: " + e.getMessage() + " (upstream.readTimeout)", e);
                LOG.warn("{}", stalled.getMessage());
                fill.fail(stalled);
                return;
            }
            if (e instanceof IOException) {
                LOG.warn("fetching the archive of {} from {} failed: {}", what, origin, e.toString());
            } else {
                LOG.warn("fetching the archive of {} from {} failed", what, origin, e);
            }
            fill.fail(new OriginException(OriginException.Reason.UNAVAILABLE,
                    "fetching the archive of " + what + " from " + origin + " failed: " + e.getMessage(), e));
        }
    }

    /**
     * Opens the archive at the URL the verified release names; when that URL stopped working (expired signed
     * URLs answer 401, 403, 404 or 410), asks the origin for the platform's download document again and uses
     * its URL, provided it names the same verified file and hash. Each request is bounded by
     * {@code upstream.requestTimeout}, and none starts past the fill's {@code deadline} ({@link System#nanoTime()}).
     */
    private OriginHttpClient.ArchiveStream openArchive(ProviderAddress address, ProviderVersion version,
                                                       VerifiedPackage pkg, String what, long deadline) {
        Optional<URI> parent = rules.parentMirror(address.hostname());
        if (parent.isPresent()) {
            try {
                return parents.openArchive(parent.get(), address, version, pkg, pkg.downloadUrl());
            } catch (OriginException e) {
                if (!STALE_URL_STATUSES.contains(e.status())) {
                    throw e;
                }
                LOG.info("the download URL of {} answered HTTP {}; asking the network mirror {} for a fresh one",
                        what, e.status(), parent.get());
                URI fresh = parents.refreshDownloadUrl(parent.get(), address, version, pkg);
                checkDeadline(deadline, what, address.hostname());
                return parents.openArchive(parent.get(), address, version, pkg, fresh);
            }
        }
        URI base = origins.providersBase(address.hostname());
        try {
            return registry.openArchive(base, address, version, pkg, pkg.downloadUrl());
        } catch (OriginException e) {
            if (!STALE_URL_STATUSES.contains(e.status())) {
                throw e;
            }
            LOG.info("the download URL of {} answered HTTP {}; asking its origin for a fresh one", what, e.status());
            String spelling = versionIndex(address, deadline, what).list().find(version)
                    .map(ListedVersion::originSpelling).orElse(version.canonical());
            checkDeadline(deadline, what, address.hostname());
            URI fresh = registry.refreshDownloadUrl(base, address, version, spelling, pkg);
            checkDeadline(deadline, what, address.hostname());
            return registry.openArchive(base, address, version, pkg, fresh);
        }
    }

    /** The provider's version index, waited for no longer than the fill's {@code deadline} allows. */
    private VersionIndexes.Entry versionIndex(ProviderAddress address, long deadline, String what) {
        try {
            return indexes.get(address).get(Math.max(0, deadline - System.nanoTime()),
                    java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw renewalTooLong(what, address.hostname());
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime
                    : new java.util.concurrent.CompletionException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OriginException(OriginException.Reason.UNAVAILABLE, "the archive of " + what
                    + ": interrupted while renewing its download URL", e);
        }
    }

    /** Fails the fill once {@code upstream.archiveTimeout} has passed since it started. */
    private void checkDeadline(long deadline, String what, String host) {
        if (System.nanoTime() - deadline >= 0) {
            throw renewalTooLong(what, host);
        }
    }

    private OriginException renewalTooLong(String what, String host) {
        metrics.fillAbandoned(host, "deadline");
        return new OriginException(OriginException.Reason.TIMEOUT, "the archive of " + what + " from " + host
                + " took longer than upstream.archiveTimeout (" + bounds.deadline().toSeconds()
                + " s) while its download URL was renewed; abandoned, the next request tries again");
    }

    /**
     * Copies the body into the fill while hashing it. An origin that sends less than
     * {@link FillBounds#minBytesPerSecond()} over a {@link FillBounds#rateWindow()}, or past the fill's
     * {@code deadline} ({@link FillBounds#deadline()} after it started), is abandoned: a trickle of bytes
     * would otherwise hold the thread, the socket and the temporary file for ever, as each read returns
     * before {@code upstream.readTimeout}.
     */
    private String copy(InputStream body, ArchiveFill fill, OptionalLong announced, String what, String origin,
                        String originHost, long deadline) throws IOException {
        MessageDigest digest = PackageHashes.sha256();
        byte[] buffer = new byte[BUFFER_SIZE];
        long total = 0;
        long limit = announced.isPresent() ? Math.min(announced.getAsLong(), maxArchiveBytes) : maxArchiveBytes;
        long windowStarted = System.nanoTime();
        long windowBytes = 0;
        int n;
        while ((n = body.read(buffer)) >= 0) {
            long now = System.nanoTime();
            if (now - deadline > 0) {
                metrics.fillAbandoned(originHost, "deadline");
                throw new OriginException(OriginException.Reason.TIMEOUT, "the archive of " + what + " from " + origin
                        + " took longer than upstream.archiveTimeout (" + bounds.deadline().toSeconds() + " s, "
                        + (total + n) + " bytes received); abandoned, the next request tries again");
            }
            windowBytes += n;
            long window = now - windowStarted;
            if (window >= bounds.rateWindow().toNanos()) {
                long rate = (long) (windowBytes / (window / 1e9));
                if (rate < bounds.minBytesPerSecond()) {
                    metrics.fillAbandoned(originHost, "too_slow");
                    throw new OriginException(OriginException.Reason.TIMEOUT, "the archive of " + what + " from " + origin
                            + " arrived at "
                            + rate + " bytes/s, below upstream.minTransferRate (" + bounds.minBytesPerSecond()
                            + " bytes/s); abandoned, the next request tries again");
                }
                windowStarted = now;
                windowBytes = 0;
            }
            total += n;
            if (total > limit) {
                throw new VerificationException(VerificationException.Check.ARCHIVE_SIZE, "the archive of " + what
                        + " from " + origin + " is larger than " + (announced.isPresent()
                        ? "the " + announced.getAsLong() + " bytes announced" : "upstream.maxArchiveBytes (" + maxArchiveBytes + ")"));
            }
            digest.update(buffer, 0, n);
            try {
                fill.append(ByteBuffer.wrap(buffer, 0, n));
            } catch (IOException e) {
                throw cacheWriteFailed(what, e);
            }
        }
        if (announced.isPresent() && total != announced.getAsLong()) {
            // What the origin sent (its length, its digest) stays in the log: a client learns only that it failed.
            LOG.warn("the archive of {} from {} ended after {} of {} announced bytes", what, origin, total,
                    announced.getAsLong());
            throw new VerificationException(VerificationException.Check.ARCHIVE_SIZE, "the archive of " + what
                    + " from " + origin + " ended before the " + announced.getAsLong() + " bytes announced");
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * Checks the fetched bytes against what was verified: the signed sha256 (or a parent mirror's {@code zh:}),
     * else a parent mirror's {@code h1:}, computed here on the downloaded file before anything is committed.
     *
     * @return the {@code h1:} hash when it was computed for the check, else null
     */
    private static String verify(VerifiedPackage pkg, String sha256, ArchiveFill fill, String what, String origin) {
        boolean fromParent = VerifiedPackage.PARENT_MIRROR.equals(pkg.signingKeyId());
        if (pkg.sha256() != null) {
            if (!sha256.equals(pkg.sha256())) {
                LOG.warn("the archive of {} from {} has sha256 {}, but {} {}", what, origin, sha256,
                        fromParent ? "the network mirror's zh: hash says" : "the signed SHA256SUMS says", pkg.sha256());
                throw new VerificationException(VerificationException.Check.ARCHIVE_HASH, "the archive of " + what
                        + " from " + origin + " does not match the sha256 "
                        + (fromParent ? "the network mirror's zh: hash" : "the signed SHA256SUMS") + " lists");
            }
            return null;
        }
        String h1;
        try {
            h1 = PackageHashes.h1(fill.openReader());
        } catch (IOException e) {
            throw new VerificationException(VerificationException.Check.ARCHIVE_HASH, "the archive of " + what + " from "
                    + origin + " cannot be hashed to check it against the network mirror's h1: hash: " + e.getMessage());
        }
        if (!pkg.h1().contains(h1)) {
            LOG.warn("the archive of {} from {} has {}, but the network mirror lists {}", what, origin, h1,
                    String.join(", ", pkg.h1()));
            throw new VerificationException(VerificationException.Check.ARCHIVE_HASH, "the archive of " + what + " from "
                    + origin + " does not match the h1: hashes the network mirror lists");
        }
        return h1;
    }

    private static CacheWriteException cacheWriteFailed(String what, IOException e) {
        return new CacheWriteException("the mirror cannot write the archive of " + what + " to its cache ("
                + e.getMessage() + "); nothing was stored. An operator must check the cache directory's disk", e);
    }

    private void recordH1(ProviderAddress address, ProviderVersion version, Platform platform, ArchiveFill fill) {
        try {
            // After the commit the fill's reader opens the committed archive.
            releases.recordH1(address, version, platform, PackageHashes.h1(fill.openReader()));
        } catch (IOException e) {
            // The archive matched the signed hash, so it is the origin's; the CLI will judge its contents.
            LOG.warn("cannot compute the h1 hash of {} {} {}: {}", address, version, platform, e.getMessage());
        }
    }
}
