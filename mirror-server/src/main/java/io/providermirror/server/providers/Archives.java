package io.providermirror.server.providers;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FillRegistry;
import io.providermirror.cache.StoredBlob;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.ArchiveCommittedElsewhere;
import io.providermirror.server.core.ArchiveCopy;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.CacheReadException;
import io.providermirror.server.core.CacheWriteException;
import io.providermirror.server.core.CachedArchives;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.Origins;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.Decision;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.Origin;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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

    private final Releases releases;
    private final VersionLists lists;
    private final Origins origins;
    private final KnownHashes knownHashes;
    /** Committed archives, answered from the cache; a store that cannot open one is the mirror's own fault. */
    private final CachedArchives cached;

    private final OriginFills fills;
    private final Executor executor;

    private final ArchiveCopy copy;
    private final MirrorMetrics metrics;

    private final BackgroundHashes hashes = new BackgroundHashes();
    private final DecisionLog decisions;

    /** Waits, at most {@code timeout}, for the {@code h1:} hashes of archives just committed to be stored. */
    boolean awaitBackgroundHashes(java.time.Duration timeout) throws InterruptedException {
        return hashes.awaitNone(timeout);
    }

    /** @param lists where the origin's spelling of a version is looked up, should its download URL need renewing */
    Archives(
            Releases releases,
            VersionLists lists,
            Origins origins,
            KnownHashes knownHashes,
            BlobStore blobs,
            OriginFills fills,
            Executor executor,
            MirrorMetrics metrics,
            DecisionLog decisions) {
        this.decisions = decisions;
        this.releases = releases;
        this.lists = lists;
        this.origins = origins;
        this.knownHashes = knownHashes;
        this.cached = new CachedArchives(blobs, executor, metrics, MirrorMetrics.LookupKind.ARCHIVE);
        this.fills = fills;
        this.executor = executor;
        this.copy = fills.copy();
        this.metrics = metrics;
    }

    /**
     * Forgets the verification failures remembered for the archives of {@code version} of {@code address} (of every
     * version when empty): after a purge.
     */
    void forgetFailures(ProviderAddress address, Optional<ProviderVersion> version) {
        List<String> prefix = new ArrayList<>(List.of(address.hostname(), address.namespace(), address.type()));
        version.ifPresent(v -> prefix.add(v.canonical()));
        fills.forgetFailuresUnder(prefix);
    }

    /** The archive's bytes: a redirect to the store, the local disk or the store, else a fill from its origin. */
    CompletableFuture<ArchiveSource> get(ProviderAddress address, ProviderVersion version, Platform platform) {
        CacheKey key = CacheLayout.archive(address, version, platform);
        return cached.get(key, () -> fetch(key, address, version, platform));
    }

    private CompletableFuture<ArchiveSource> fetch(
            CacheKey key, ProviderAddress address, ProviderVersion version, Platform platform) {
        return releases.get(address, version, Requester.MIRROR).thenCompose(entry -> {
            Origin origin = origins.of(address.hostname());
            VerifiedPackage pkg = entry.release()
                    .find(platform)
                    .orElseThrow(() -> new OriginException(
                            OriginException.Reason.NOT_FOUND,
                            address + " " + version + " is not available for " + platform));
            Optional<FillRegistry.Joined> joined = fills.joinOrStart(
                    key,
                    address.hostname(),
                    address + " " + version + " " + platform,
                    fill -> runFill(fill, origin, address, version, pkg));
            if (joined.isEmpty()) {
                // Committed by a fill that ended since this request looked.
                return CompletableFuture.supplyAsync(() -> findCommitted(key, address, version, platform), executor);
            }
            ArchiveFill fill = joined.get().fill();
            return fill.started()
                    .thenApplyAsync(length -> follow(fill, length), executor)
                    .exceptionallyCompose(failure -> Futures.cause(failure) instanceof ArchiveCommittedElsewhere
                            ? CompletableFuture.supplyAsync(
                                    () -> findCommitted(key, address, version, platform), executor)
                            : CompletableFuture.failedFuture(failure));
        });
    }

    private ArchiveSource findCommitted(
            CacheKey key, ProviderAddress address, ProviderVersion version, Platform platform) {
        return cached.open(key)
                .orElseThrow(() -> new OriginException(
                        OriginException.Reason.UNAVAILABLE,
                        "the archive of " + address + " " + version + " " + platform
                                + " vanished from the cache as it was committed; try again"));
    }

    /** Opens a reader on the fill; a fill that already failed answers with its failure instead. */
    private static ArchiveSource follow(ArchiveFill fill, OptionalLong length) {
        java.nio.channels.SeekableByteChannel reader = null;
        try {
            reader = fill.openReader();
        } catch (IOException e) {
            if (fill.failure().isEmpty()) {
                LOG.error("the cache cannot open {} while it is fetched", fill.key(), e);
                throw new CacheReadException(
                        "the mirror cannot read " + fill.key() + " from its cache while it is fetched ("
                                + e.getMessage() + "); an operator must check the cache's disk",
                        e);
            }
        }
        Optional<Throwable> failure = fill.failure();
        if (failure.isPresent()) {
            closeQuietly(reader);
            throw failure.get() instanceof RuntimeException runtime
                    ? runtime
                    : new java.util.concurrent.CompletionException(failure.get());
        }
        return new ArchiveSource.Filling(fill, length, reader);
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

    private void runFill(
            ArchiveFill fill, Origin fetchFrom, ProviderAddress address, ProviderVersion version, VerifiedPackage pkg) {
        String what = address + " " + version + " " + pkg.platform();
        String origin = pkg.downloadUrl().getAuthority();
        // upstream.archiveTimeout counts from here: renewing an expired download URL is part of the download.
        long deadline = copy.deadlineFromNow();
        // Waiting for the response is bounded by upstream.requestTimeout; each read of the body by readTimeout.
        Origin.Deadline renewal = copy.renewalDeadline(deadline, what, address.hostname());
        try (OriginHttpClient.ArchiveStream stream =
                fetchFrom.openArchive(address, version, () -> lists.cachedSpelling(address, version), pkg, renewal)) {
            OptionalLong announced = stream.contentLength();
            copy.checkAnnounced(announced, what, origin);
            fill.begin(announced);
            String sha256 = copy.copy(
                    stream.chunks(),
                    fill,
                    announced,
                    what,
                    origin,
                    pkg.downloadUrl().getHost(),
                    deadline);
            String h1 = verify(pkg, sha256, fill, what, origin);
            StoredBlob blob;
            // Clients are answered at the commit; the h1: that follows is awaited by a closing mirror.
            hashes.begin();
            try {
                try {
                    blob = fill.commit(sha256);
                } catch (IOException e) {
                    throw OriginFills.cacheWriteFailed(what, e);
                }
                LOG.info("cached {} from {} ({} bytes, sha256 {})", what, origin, blob.size(), sha256);
                // The archive is cached and served (a committed fill stays committed); what follows is recorded
                // beside it, each step whatever became of the one before.
                h1 = recordH1(address, version, pkg.platform(), fill, h1, what, origin);
                try {
                    decisions.record(Decision.archiveCommitted(
                            address.toString(),
                            version.canonical(),
                            pkg.platform().toString(),
                            sha256,
                            h1));
                } catch (RuntimeException e) {
                    LOG.error(
                            "cached {} from {}, but its transparency-log entry could not be recorded", what, origin, e);
                }
            } finally {
                hashes.end();
            }
        } catch (VerificationException e) {
            LOG.error(
                    "refusing the archive of {} from {}: {} check failed: {}", what, origin, e.check(), e.getMessage());
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
                OriginException stalled = new OriginException(
                        OriginException.Reason.TIMEOUT,
                        "the archive of " + what + " from " + origin + " stalled: " + e.getMessage()
                                + " (upstream.readTimeout)",
                        e);
                LOG.warn("{}", stalled.getMessage());
                fill.fail(stalled);
                return;
            }
            if (e instanceof IOException) {
                LOG.warn("fetching the archive of {} from {} failed: {}", what, origin, e.toString());
            } else {
                LOG.warn("fetching the archive of {} from {} failed", what, origin, e);
            }
            fill.fail(new OriginException(
                    OriginException.Reason.UNAVAILABLE,
                    "fetching the archive of " + what + " from " + origin + " failed: " + e.getMessage(),
                    e));
        }
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
                LOG.warn(
                        "the archive of {} from {} has sha256 {}, but {} {}",
                        what,
                        origin,
                        sha256,
                        fromParent ? "the network mirror's zh: hash says" : "the signed SHA256SUMS says",
                        pkg.sha256());
                throw new VerificationException(
                        VerificationException.Check.ARCHIVE_HASH,
                        "the archive of " + what
                                + " from " + origin + " does not match the sha256 "
                                + (fromParent ? "the network mirror's zh: hash" : "the signed SHA256SUMS") + " lists");
            }
            return null;
        }
        String h1;
        try {
            h1 = PackageHashes.h1(fill.openReader());
        } catch (IOException e) {
            throw new VerificationException(
                    VerificationException.Check.ARCHIVE_HASH,
                    "the archive of " + what + " from " + origin
                            + " cannot be hashed to check it against the network mirror's h1: hash: " + e.getMessage());
        }
        if (!pkg.h1().contains(h1)) {
            LOG.warn(
                    "the archive of {} from {} has {}, but the network mirror lists {}",
                    what,
                    origin,
                    h1,
                    String.join(", ", pkg.h1()));
            throw new VerificationException(
                    VerificationException.Check.ARCHIVE_HASH,
                    "the archive of " + what + " from " + origin
                            + " does not match the h1: hashes the network mirror lists");
        }
        return h1;
    }

    /**
     * Records the {@code h1:} of a committed archive ({@code listed}, the one its version's listing gave, or else
     * computed from the archive) and returns it, or null when it could not be computed. Never throws: a failure to
     * compute or record it is logged, and the archive stays cached with its {@code zh:}.
     */
    private String recordH1(
            ProviderAddress address,
            ProviderVersion version,
            Platform platform,
            ArchiveFill fill,
            String listed,
            String what,
            String origin) {
        String h1 = listed;
        if (h1 == null) {
            try {
                // After the commit the fill's reader opens the committed archive.
                h1 = PackageHashes.h1(fill.openReader());
            } catch (IOException | RuntimeException e) {
                // The archive matched the signed hash, so it is the origin's; the CLI will judge its contents.
                LOG.warn("cannot compute the h1 hash of {} {} {}: {}", address, version, platform, e.toString());
                return null;
            }
        }
        try {
            knownHashes.record(address, version, platform, h1);
        } catch (RuntimeException e) {
            LOG.error("cached {} from {}, but recording its h1: hash failed", what, origin, e);
        }
        return h1;
    }
}
