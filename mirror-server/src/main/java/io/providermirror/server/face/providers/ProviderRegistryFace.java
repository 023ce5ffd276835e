package io.providermirror.server.face.providers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheWriteException;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.ProviderPolicy;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.server.core.RenderedAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.providers.VersionLists;
import io.providermirror.upstream.DownloadDocument;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror's {@code providers.v1} face: the provider registry protocol for every origin host, answered from what
 * the mirror verified, so that the CLI, installing "directly", verifies the origin's signature itself and records
 * {@code zh:} for every platform. Version lists are those of {@link VersionLists} (same TTL and stale-if-error as
 * {@code index.json}, same policy); a package's download document, SHA256SUMS and signature are the origin's exact
 * bytes, taken from the release's evidence in the cache and verified again before they are handed out. Packages that
 * reached the mirror without an origin signature cannot be offered here ({@link NoOriginSignatureException}).
 */
public final class ProviderRegistryFace {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger(ProviderRegistryFace.class);

    /** How long a release verified for this face is handed out before its evidence is verified again. */
    static final Duration RECHECK = Duration.ofHours(1);

    /** A verified release's packages as their origin published them. */
    private record PublishedRelease(Map<Platform, PublishedPackage> packages, int estimatedBytes) {}

    /**
     * A version whose published release is asked for, with the verified release it is checked against as it loads:
     * two keys of one version are one key, whichever release they carry.
     */
    private record Key(ProviderAddress address, ProviderVersion version, VerifiedRelease release) {

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.address.equals(address) && key.version.equals(version);
        }

        @Override
        public int hashCode() {
            return Objects.hash(address, version);
        }
    }

    private final ProviderMirror mirror;
    private final CacheDocuments documents;
    private final ProviderPolicy policy;
    private final OriginRules rules;
    private final Clock clock;
    /** At most this many version lists' registry forms are kept; each lives no longer than its list in memory. */
    static final int MAX_VERSION_DOCUMENTS = 65_536;

    /** Each version list's rendered registry form, for as long as the list itself is in memory. */
    private final RenderedAnswers<VersionLists.Entry> versionDocuments = new RenderedAnswers<>(MAX_VERSION_DOCUMENTS);

    /** Each version's published release, verified again once it is older than {@link #RECHECK}: never stale. */
    private final PulledAnswers<Key, PublishedRelease> published;

    /**
     * @param mirror the provider path this face answers from
     * @param policy the operator's policy, which the mirror applies too
     * @param engine the cache (its documents: the releases' evidence), the rules of each origin, the executor, clock
     *     and meters every path shares
     * @param memoryBytes the heap the published releases in memory may take (estimated)
     */
    public ProviderRegistryFace(ProviderMirror mirror, ProviderPolicy policy, EngineServices engine, long memoryBytes) {
        this.clock = engine.clock();
        this.mirror = mirror;
        this.documents = new CacheDocuments(engine.documents());
        this.policy = policy;
        this.rules = engine.rules();
        this.published = PulledAnswers.<Key, PublishedRelease>builder(this::load, engine.executor(), clock, RECHECK)
                .expiring()
                .weighing(PublishedRelease::estimatedBytes, memoryBytes)
                .monitored(engine.metrics(), "published_releases")
                .build();
    }

    /** Forgets the published release memory holds of {@code version}: after a purge. */
    public void forget(ProviderAddress address, ProviderVersion version) {
        published.forget(new Key(address, version, null));
    }

    /** Forgets the published releases memory holds of every version of {@code address}: after a purge. */
    public void forget(ProviderAddress address) {
        published.forgetIf(key -> key.address().equals(address));
    }

    /**
     * What every request of this face for a provider of {@code hostname} fails with before any origin is asked, if it
     * would whatever the provider: a refused host (403) or a policy that refuses all of the host.
     */
    public Optional<RuntimeException> hostRefusal(String hostname) {
        Optional<String> host = rules.hostRefusal(hostname);
        if (host.isPresent()) {
            return Optional.of(new OriginException(
                    OriginException.Reason.FORBIDDEN, "refused to fetch providers of " + hostname + ": " + host.get()));
        }
        return policy.refusal(hostname).map(PolicyDeniedException::new);
    }

    /**
     * {@code :namespace/:type/versions}: the versions {@code index.json} lists, each with the platforms the policy
     * lets in and the protocols its origin named. For a host whose source is a parent network mirror the answer
     * carries a warning (the CLI shows it): its packages cannot be installed through this face.
     */
    public CompletableFuture<RenderedDocument> versions(ProviderAddress address) {
        return mirror.allowedList(address).thenApply(entry -> versionDocuments.get(entry, this::render));
    }

    private RenderedDocument render(VersionLists.Entry entry) {
        ProviderAddress address = entry.list().address();
        ObjectNode root = JSON.createObjectNode();
        ArrayNode versions = root.putArray("versions");
        for (ListedVersion listed : entry.list().versions().values()) {
            if (!policy.allows(address, listed.version())) {
                continue;
            }
            ObjectNode version =
                    versions.addObject().put("version", listed.version().canonical());
            if (!listed.protocols().isEmpty()) {
                listed.protocols().forEach(version.putArray("protocols")::add);
            }
            ArrayNode platforms = version.putArray("platforms");
            for (Platform platform : listed.platforms()) {
                if (policy.allows(platform)) {
                    platforms.addObject().put("os", platform.os()).put("arch", platform.arch());
                }
            }
        }
        rules.parentMirror(address.hostname())
                .ifPresent(parent -> root.putArray("warnings").add(parentMirrorMessage(address, parent.toString())));
        try {
            return new RenderedDocument(JSON.writeValueAsBytes(root));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The package of {@code platform}: its origin's download document, SHA256SUMS and signature, verified. Fails as
     * the version document would (refused host, policy, origin trouble), with a policy refusal for a platform the
     * policy does not serve, NOT_FOUND for a platform the release has no package for, and
     * {@link NoOriginSignatureException} for a package without an origin signature.
     */
    public CompletableFuture<PublishedPackage> download(
            ProviderAddress address, ProviderVersion version, Platform platform) {
        Optional<String> refused = policy.refusal(platform);
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(new PolicyDeniedException(refused.get()));
        }
        return mirror.allowedRelease(address, version)
                .exceptionallyCompose(
                        failure -> CompletableFuture.failedFuture(namingPlatform(failure, address, version, platform)))
                .thenCompose(entry -> {
                    VerifiedPackage pkg = entry.release()
                            .find(platform)
                            .orElseThrow(() -> new OriginException(
                                    OriginException.Reason.NOT_FOUND,
                                    address + " " + version + " has no package for " + platform + " at its origin"));
                    if (VerifiedPackage.PARENT_MIRROR.equals(pkg.signingKeyId())) {
                        throw new NoOriginSignatureException(parentMirrorMessage(
                                address,
                                rules.parentMirror(address.hostname())
                                        .map(Object::toString)
                                        .orElse("a parent")));
                    }
                    if (pkg.unsigned()) {
                        throw new NoOriginSignatureException(address + " " + version + " " + platform
                                + " came from its origin without a signature (upstream.hosts." + address.hostname()
                                + ".allowUnsigned), so the CLI could not verify it through the provider registry protocol: "
                                + "install it through this mirror's network mirror protocol (provider_installation { "
                                + "network_mirror { url = \"https://<mirror>/providers/\" } })");
                    }
                    return published
                            .get(new Key(address, version, entry.release()))
                            .thenApply(release -> Objects.requireNonNull(
                                    release.value().packages().get(platform)));
                });
    }

    /**
     * A failure to fetch the release, said about the package that was asked for: the release is fetched with every
     * platform's download document, so the origin's trouble may name another platform than the client's.
     */
    private static Throwable namingPlatform(
            Throwable failure, ProviderAddress address, ProviderVersion version, Platform platform) {
        Throwable cause = Futures.cause(failure);
        if (cause.getClass() != OriginException.class
                || String.valueOf(cause.getMessage()).contains(platform.toString())) {
            return failure;
        }
        OriginException origin = (OriginException) cause;
        return new OriginException(
                origin.reason(),
                address + " " + version + " " + platform + " cannot be offered until its release is fetched: "
                        + origin.getMessage(),
                origin);
    }

    private static String parentMirrorMessage(ProviderAddress address, String parent) {
        return "packages of " + address.hostname() + " reach this mirror through the network mirror " + parent
                + " (upstream.hosts." + address.hostname() + ".mirrorUrl), without their origin's signature, so they "
                + "cannot be installed through the provider registry protocol: install " + address
                + " through this mirror's network mirror protocol (provider_installation { network_mirror { url = "
                + "\"https://<mirror>/providers/\" } })";
    }

    /**
     * The evidence of {@code release} read back from the cache and verified again under today's signature policy, its
     * signatures' dates judged now as the CLI will judge them; each package it vouches for must be the one
     * the key's release holds, whose archive the mirror serves.
     */
    private PublishedRelease load(Key key) {
        VerifiedRelease release = key.release();
        ReleaseEvidence evidence;
        try {
            evidence = documents
                    .releaseEvidence(key.address(), key.version())
                    .orElseThrow(() -> new CacheWriteException(
                            "the evidence of " + key.address() + " " + key.version() + " is not in the cache (it "
                                    + "could not be stored when it was verified); it is fetched again after a restart",
                            null))
                    .value();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the evidence of " + key.address() + " " + key.version() + " from the cache", e);
        }
        Instant now = clock.instant();
        VerifiedRelease verified;
        try {
            verified = ReleaseVerifier.verify(
                    key.address(),
                    key.version(),
                    evidence,
                    rules.signaturePolicy(key.address().hostname()),
                    now);
        } catch (VerificationException e) {
            if (e.check() != VerificationException.Check.SIGNATURE_EXPIRED) {
                throw e;
            }
            LOG.warn("not offering {} {} through providers.v1: {}", key.address(), key.version(), e.getMessage());
            throw new ExpiredOriginSignatureException(e.getMessage()
                    + "; the mirror verified it before that, but through the provider registry protocol the CLI checks"
                    + " the origin's signature itself and would refuse it: install " + key.address() + " "
                    + key.version() + " through this mirror's network mirror protocol (provider_installation { "
                    + "network_mirror { url = \"https://<mirror>/providers/\" } })");
        }
        Map<Platform, PublishedPackage> packages = new HashMap<>();
        int bytes = 256;
        for (ReleaseEvidence.Download download : evidence.downloads()) {
            Platform platform = Platform.parse(download.platform());
            VerifiedPackage pkg = verified.packages().get(platform);
            VerifiedPackage served = release.packages().get(platform);
            if (served == null || !served.sha256().equals(pkg.sha256())) {
                throw new OriginException(
                        OriginException.Reason.VERIFICATION_FAILED,
                        "the cached evidence of " + key.address() + " " + key.version() + " " + platform
                                + " no longer names the package the mirror verified; restart the mirror to verify "
                                + "it again");
            }
            // Verified above: the document parses as the CLI reads it, and its SHA256SUMS and signature are in the
            // evidence. What the CLI gets is written from what was read here, never the origin's bytes.
            DownloadDocument named = DownloadDocument.parse(
                    platform,
                    download.url(),
                    download.document(),
                    "the download document of " + key.address() + " " + key.version() + " " + platform);
            ReleaseEvidence.Checksums checksums = evidence.checksums().stream()
                    .filter(c -> c.url().equals(named.shasumsUrl())
                            && c.signatureUrl().equals(named.shasumsSignatureUrl()))
                    .findFirst()
                    .orElseThrow();
            packages.put(platform, PublishedPackage.of(named, checksums.sums(), checksums.signature()));
            bytes += 2 * download.document().length + checksums.sums().length + checksums.signature().length + 128;
        }
        return new PublishedRelease(Map.copyOf(packages), bytes);
    }
}
