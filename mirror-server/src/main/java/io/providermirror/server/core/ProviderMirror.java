package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FillRegistry;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.OriginException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The pull-through mirror as plain Java: the three questions of the network mirror protocol, answered from
 * the cache when it can, and from the origin (verified, then cached) when it must. Failures complete the
 * futures with an {@link io.providermirror.upstream.OriginException} whose reason says what kind of failure
 * it is and whose message names the provider and the origin.
 */
public final class ProviderMirror {

    /**
     * Tunables of the pull-through behaviour; {@code offline} serves the cache only; {@code metadataTimeout}
     * bounds how long a caller waits for a version list or version document, however many origin requests
     * it takes; {@code metadataMemoryBytes} bounds the heap that version lists and releases kept in memory
     * may hold (beyond it the least used are read back from disk when asked for); {@code fillBounds} bounds
     * archive downloads; {@code notFoundTtl} is how long an origin's "no such provider" is remembered.
     */
    public record Settings(Duration indexTtl, long maxArchiveBytes, boolean offline, Duration metadataTimeout,
                           long metadataMemoryBytes, FillBounds fillBounds, Duration notFoundTtl) {
        public Settings {
            if (notFoundTtl.isNegative()) {
                throw new IllegalArgumentException("notFoundTtl: " + notFoundTtl + " (expected: >= 0)");
            }
            if (metadataMemoryBytes <= 0) {
                throw new IllegalArgumentException("metadataMemoryBytes: " + metadataMemoryBytes + " (expected: > 0)");
            }
            if (metadataTimeout.isZero() || metadataTimeout.isNegative()) {
                throw new IllegalArgumentException("metadataTimeout: " + metadataTimeout + " (expected: > 0)");
            }
        }
    }

    private final Duration metadataTimeout;
    private final ProviderPolicy policy;
    private final OriginRules rules;
    private final MirrorAuth auth;
    private final OriginRegistries origins;
    private final VersionIndexes indexes;
    private final Releases releases;
    private final Archives archives;

    /**
     * @param executor     for blocking work of bounded length: disk, metadata requests to origins
     * @param fillExecutor runs archive downloads; it needs a thread for each of {@code fillBounds.maxConcurrent()}
     */
    public ProviderMirror(Settings settings, Upstream upstream, BlobStore blobs, DocumentStore documents,
                          Executor executor, Executor fillExecutor, Clock clock, MirrorMetrics metrics, ProviderPolicy policy, OriginRules rules,
                          MirrorAuth auth) {
        this.policy = policy;
        this.rules = rules;
        this.auth = auth;
        this.metadataTimeout = settings.metadataTimeout();
        this.origins = new OriginRegistries(upstream.discovery(), documents, settings.indexTtl().isZero()
                ? Duration.ofSeconds(1) : settings.indexTtl(), rules);
        this.indexes = new VersionIndexes(origins, upstream, rules, documents, executor, clock, settings.indexTtl(),
                !settings.offline(), settings.metadataMemoryBytes() / 2, metrics, policy, settings.notFoundTtl());
        this.releases = new Releases(indexes, origins, upstream, documents, executor, settings.metadataMemoryBytes() / 2,
                metrics, policy, rules);
        FillRegistry fills = new FillRegistry(blobs);
        metrics.bindStore(blobs, fills);
        this.archives = new Archives(releases, indexes, origins, upstream, rules, blobs, fills, executor, fillExecutor,
                settings.fillBounds(), settings.maxArchiveBytes(), metrics);
    }

    /**
     * {@code index.json}: every semver version the origin lists that the policy lets in. A provider the policy
     * refuses, or of which it refuses every version, fails with a {@link PolicyDeniedException}.
     */
    /**
     * Why the mirror would never serve {@code version} of {@code address} (a refused host, an IP literal, another
     * port of a configured host, or the policy), if it would not; what {@code import} uses to take in nothing unreachable.
     */
    public Optional<String> refusal(ProviderAddress address, ProviderVersion version) {
        Optional<String> host = rules.hostRefusal(address.hostname());
        return host.isPresent() ? host : policy.refusal(address, version);
    }

    /**
     * Waits, at most {@code timeout}, for work that follows answers in the background (the {@code h1:} hashes of
     * archives just committed); true when none is left. Called before the mirror's threads are stopped.
     */
    public boolean awaitBackgroundWork(Duration timeout) throws InterruptedException {
        return archives.awaitBackgroundHashes(timeout);
    }

    public CompletableFuture<RenderedDocument> versionIndex(ProviderAddress address) {
        Optional<CompletableFuture<RenderedDocument>> host = refusedHost(address);
        if (host.isPresent()) {
            return host.get();
        }
        Optional<String> refused = policy.refusal(address);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        return withinDeadline(indexes.lookup(address), address, "the version list").thenApply(entry -> {
            if (entry.allowedVersions() == 0 && !entry.list().versions().isEmpty()) {
                throw new PolicyDeniedException("the policy refuses every version of " + address + " its origin lists ("
                        + policy.refusal(address, entry.list().versions().keySet().iterator().next()).orElse("") + ")");
            }
            return entry.index();
        });
    }

    /**
     * {@code <version>.json}: every platform of a verified version that the policy lets in, with {@code zh:}
     * and known {@code h1:}.
     */
    public CompletableFuture<RenderedDocument> versionDocument(ProviderAddress address, ProviderVersion version) {
        Optional<CompletableFuture<RenderedDocument>> host = refusedHost(address);
        if (host.isPresent()) {
            return host.get();
        }
        Optional<String> refused = policy.refusal(address, version);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        return withinDeadline(releases.lookup(address, version), address, "version " + version)
                .thenApply(entry -> auth.enabled()
                        // Signed archive URLs expire, so each response gets its own.
                        ? releases.render(entry, platform -> auth.archiveQuery(address, version, platform))
                        : entry.document());
    }

    /**
     * The verified release of {@code version} that the cache directory holds, for the status page; never asks an
     * origin. Blocking: call it off the event loop.
     */
    public Optional<Releases.Stored> storedRelease(ProviderAddress address, ProviderVersion version) {
        return releases.stored(address, version);
    }

    /** A 403 for a hostname the mirror does not contact unless configured (an IP address, a port alias). */
    private <T> Optional<CompletableFuture<T>> refusedHost(ProviderAddress address) {
        return rules.hostRefusal(address.hostname()).map(reason -> CompletableFuture.failedFuture(new OriginException(
                OriginException.Reason.FORBIDDEN, "refused to fetch " + address + ": " + reason)));
    }

    /**
     * The caller's view of {@code work}, failed with a {@code TIMEOUT} naming the origin when it takes longer
     * than {@code metadataTimeout}. The work itself goes on and is cached, so a retry soon after (the CLI
     * retries once) finds it done or joins it.
     */
    private <T> CompletableFuture<T> withinDeadline(CompletableFuture<T> work, ProviderAddress address, String what) {
        if (work.isDone()) {
            return work;
        }
        return work.copy().orTimeout(metadataTimeout.toMillis(), TimeUnit.MILLISECONDS).exceptionally(failure -> {
            Throwable cause = Futures.cause(failure);
            if (cause instanceof TimeoutException) {
                throw new OriginException(OriginException.Reason.TIMEOUT, what + " of " + address + ": its origin "
                        + address.hostname() + " (" + origins.describe(address.hostname())
                        + ") did not answer within " + metadataTimeout.toMillis() + " ms; the mirror goes on "
                        + "fetching it, so trying again shortly may succeed");
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(cause);
        });
    }

    /** The archive, unless the policy refuses it: from disk when cached, else following its fill from the origin. */
    public CompletableFuture<ArchiveSource> archive(ProviderAddress address, ProviderVersion version, Platform platform) {
        Optional<CompletableFuture<ArchiveSource>> host = refusedHost(address);
        if (host.isPresent()) {
            return host.get();
        }
        Optional<String> refused = policy.refusal(address, version).or(() -> policy.refusal(platform));
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        return archives.get(address, version, platform);
    }
}
