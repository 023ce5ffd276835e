package io.providermirror.upstream;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.SigningKeyAhead;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider registry protocol towards one origin's {@code providers.v1} base URL: version lists, download
 * documents, checksums and archives.
 */
public final class RegistryClient {

    private static final Logger LOG = LoggerFactory.getLogger(RegistryClient.class);

    /** A version list with the exact bytes the origin sent, for persisting. */
    public record FetchedVersions(byte[] body, VersionList list) {}

    private final OriginHttpClient http;
    private final HostLanes lanes;
    private final OriginCredentials credentials;

    /** @param lanes run the parallel requests for a release's platforms, each origin host on its own lane */
    public RegistryClient(OriginHttpClient http, HostLanes lanes) {
        this(http, lanes, OriginCredentials.NONE);
    }

    /** A client that sends each host's token where {@link OriginCredentials} says it belongs. */
    public RegistryClient(OriginHttpClient http, HostLanes lanes, OriginCredentials credentials) {
        this.http = http;
        this.lanes = lanes;
        this.credentials = credentials;
    }

    /** The host's token, for its registry API. */
    private String token(ProviderAddress address) {
        return credentials.tokenFor(address.hostname()).orElse(null);
    }

    /** The host's token for {@code url} only when it lives on the registry API's own authority. */
    private String tokenFor(URI url, URI providersBase, ProviderAddress address) {
        return OriginHttpClient.sameAuthority(url, providersBase) ? token(address) : null;
    }

    /** {@code GET :namespace/:type/versions}. */
    public FetchedVersions versions(URI providersBase, ProviderAddress address) {
        URI url = providersBase.resolve(address.namespace() + "/" + address.type() + "/versions");
        String what = "the version list of " + address;
        OriginHttpClient.Document document =
                http.getDocument(address.hostname(), url, what, OriginObserver.Operation.VERSIONS, token(address));
        if (document.status() == 404) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "provider " + address + " does not exist at its origin (" + url + " answered 404)");
        }
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        return new FetchedVersions(document.body(), VersionList.parse(address, document.body(), url.getAuthority()));
    }

    /**
     * Fetches everything needed to verify a version: each listed platform's download document (in parallel), then
     * each SHA256SUMS document and its signature (all of them at once). Platforms whose download document the origin
     * does not have (404) are left out.
     */
    public ReleaseEvidence fetchRelease(URI providersBase, ProviderAddress address, ListedVersion version) {
        List<CompletableFuture<?>> started = new ArrayList<>();
        List<CompletableFuture<Optional<Fetched>>> futures = new ArrayList<>();
        for (Platform platform : version.platforms()) {
            futures.add(onLane(address, () -> fetchDownload(providersBase, address, version, platform), started));
        }
        List<Fetched> fetched = new ArrayList<>();
        for (CompletableFuture<Optional<Fetched>> future : futures) {
            join(future).ifPresent(fetched::add);
        }
        if (fetched.isEmpty()) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "the origin of " + address + " has no download for any platform of version " + version.version());
        }
        Map<URI, DownloadDocument> bySums = new LinkedHashMap<>();
        for (Fetched f : fetched) {
            bySums.putIfAbsent(f.document().shasumsUrl(), f.document());
        }
        List<PendingChecksums> sums = new ArrayList<>();
        started.clear();
        for (DownloadDocument document : bySums.values()) {
            sums.add(fetchChecksums(providersBase, address, version, document, started));
        }
        // While they are in flight, the key the verification checks first (the first listed) is read ahead.
        for (DownloadDocument document : bySums.values()) {
            SigningKeyAhead.read(document.signingKeys());
        }
        List<ReleaseEvidence.Download> downloads =
                fetched.stream().map(Fetched::evidence).toList();
        List<ReleaseEvidence.Checksums> checksums =
                sums.stream().map(PendingChecksums::join).toList();
        return new ReleaseEvidence(downloads, checksums);
    }

    /**
     * Opens the archive of a verified package for streaming, from {@code downloadUrl} (the package's own, or
     * a fresher one from {@link #refreshDownloadUrl}); the host's token goes along only to its registry API's
     * authority.
     */
    public OriginHttpClient.ArchiveStream openArchive(
            URI providersBase, ProviderAddress address, ProviderVersion version, VerifiedPackage pkg, URI downloadUrl) {
        return http.openArchive(
                address.hostname(),
                downloadUrl,
                "the archive of " + address + " " + version + " " + pkg.platform(),
                tokenFor(downloadUrl, providersBase, address));
    }

    /**
     * Asks the origin again for a platform's download document, for when the download URL the mirror kept
     * stopped working (registries hand out signed URLs that expire). The new document must name the same
     * file with the same hash that was verified; only its URL is taken.
     *
     * @throws VerificationException when the origin now announces a different package
     */
    public URI refreshDownloadUrl(
            URI providersBase,
            ProviderAddress address,
            ProviderVersion version,
            String originSpelling,
            VerifiedPackage pkg) {
        Fetched fresh = fetchDownload(
                        providersBase,
                        address,
                        new ListedVersion(version, originSpelling, List.of(pkg.platform())),
                        pkg.platform())
                .orElseThrow(() -> new OriginException(
                        OriginException.Reason.NOT_FOUND,
                        "the download document of " + address + " " + version + " " + pkg.platform()
                                + " is gone from its origin"));
        DownloadDocument document = fresh.document();
        if (!document.filename().equals(pkg.filename()) || !document.shasum().equals(pkg.sha256())) {
            throw new VerificationException(
                    VerificationException.Check.CHECKSUM_LISTING,
                    "the origin now announces "
                            + document.filename() + " with hash " + document.shasum() + " for " + address + " "
                            + version + " "
                            + pkg.platform() + ", but verified " + pkg.filename() + " with hash " + pkg.sha256());
        }
        return document.downloadUrl();
    }

    private record Fetched(ReleaseEvidence.Download evidence, DownloadDocument document) {}

    private Optional<Fetched> fetchDownload(
            URI base, ProviderAddress address, ListedVersion version, Platform platform) {
        URI url = base.resolve(address.namespace() + "/" + address.type() + "/" + version.originSpelling()
                + "/download/" + platform.os() + "/" + platform.arch());
        String what = "the download document of " + address + " " + version.version() + " " + platform;
        OriginHttpClient.Document document =
                http.getDocument(address.hostname(), url, what, OriginObserver.Operation.DOWNLOAD, token(address));
        if (document.status() == 404) {
            LOG.warn("{}: the origin lists the platform but {} answered 404; leaving the platform out", what, url);
            return Optional.empty();
        }
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        DownloadDocument parsed = DownloadDocument.parse(platform, document.finalUri(), document.body(), what);
        return Optional.of(new Fetched(
                new ReleaseEvidence.Download(platform.toString(), document.finalUri(), document.body()), parsed));
    }

    /**
     * A SHA256SUMS document and its signature being fetched at once, each its own request on the host's lane (not one
     * waiting for the other: a cold version's first byte waits one round trip less); the document's failure is
     * reported first when both fail.
     */
    private record PendingChecksums(
            DownloadDocument document, CompletableFuture<byte[]> sums, CompletableFuture<byte[]> signature) {

        ReleaseEvidence.Checksums join() {
            byte[] sumsBytes = RegistryClient.join(sums);
            return new ReleaseEvidence.Checksums(
                    document.shasumsUrl(), sumsBytes, document.shasumsSignatureUrl(), RegistryClient.join(signature));
        }
    }

    private PendingChecksums fetchChecksums(
            URI base,
            ProviderAddress address,
            ListedVersion version,
            DownloadDocument d,
            List<CompletableFuture<?>> started) {
        String what = "SHA256SUMS of " + address + " " + version.version();
        CompletableFuture<byte[]> sums = onLane(
                address,
                () -> fetchFile(
                        address,
                        d.shasumsUrl(),
                        what,
                        OriginObserver.Operation.CHECKSUMS,
                        tokenFor(d.shasumsUrl(), base, address)),
                started);
        CompletableFuture<byte[]> signature = onLane(
                address,
                () -> fetchFile(
                        address,
                        d.shasumsSignatureUrl(),
                        "the signature of " + what,
                        OriginObserver.Operation.SIGNATURE,
                        tokenFor(d.shasumsSignatureUrl(), base, address)),
                started);
        return new PendingChecksums(d, sums, signature);
    }

    /**
     * {@code work} on the lane of the provider's host, added to {@code started}, the release's requests so far. When
     * the lane refuses it (it is full), those are cancelled (a request not begun never will be) before the refusal
     * is thrown: the release has failed, and its requests must not keep a full lane full.
     */
    private <T> CompletableFuture<T> onLane(
            ProviderAddress address, Supplier<T> work, List<CompletableFuture<?>> started) {
        CompletableFuture<T> future;
        try {
            future = CompletableFuture.supplyAsync(work, lanes.of(address.hostname()));
        } catch (RejectedExecutionException refused) {
            started.forEach(request -> request.cancel(false));
            throw refused;
        }
        started.add(future);
        return future;
    }

    private byte[] fetchFile(
            ProviderAddress address, URI url, String what, OriginObserver.Operation operation, String token) {
        OriginHttpClient.Document document = http.getDocument(address.hostname(), url, what, operation, token);
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        return document.body();
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw e;
        }
    }
}
