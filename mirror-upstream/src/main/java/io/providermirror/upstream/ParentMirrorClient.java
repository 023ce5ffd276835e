package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.ReleaseJudgement;
import io.providermirror.upstream.verify.VerificationException;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Another network mirror standing in for an origin host (a DMZ instance of this mirror, a repository manager,
 * a static {@code terraform providers mirror} tree): version lists from its {@code index.json}, versions from
 * its {@code <version>.json}. It publishes hashes, not signatures, so what it says is trusted: archives are
 * checked against its {@code zh:} hash (the zip's sha256) when it gives one, else against its {@code h1:}.
 */
public final class ParentMirrorClient {

    private static final Logger LOG = LoggerFactory.getLogger(ParentMirrorClient.class);
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private final OriginHttpClient http;
    private final OriginCredentials credentials;

    public ParentMirrorClient(OriginHttpClient http, OriginCredentials credentials) {
        this.http = http;
        this.credentials = credentials;
    }

    /** {@code GET <mirror>/<host>/<ns>/<type>/index.json}, kept in the registry's form. */
    public RegistryClient.FetchedVersions versions(URI mirrorBase, ProviderAddress address) {
        URI url = providerBase(mirrorBase, address).resolve("index.json");
        String what = "the version list of " + address;
        OriginHttpClient.Document document =
                http.getDocument(address.hostname(), url, what, OriginObserver.Operation.VERSIONS, token(address));
        if (document.status() == 404) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "provider " + address + " is not in the network mirror " + mirrorBase + " (" + url
                            + " answered 404)");
        }
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        byte[] registryForm = VersionList.fromMirrorIndex(address, document.body(), url.getAuthority());
        return new RegistryClient.FetchedVersions(
                registryForm, VersionList.parse(address, registryForm, url.getAuthority()));
    }

    /** {@code GET <mirror>/<host>/<ns>/<type>/<version>.json}, as evidence. */
    public ReleaseEvidence fetchRelease(URI mirrorBase, ProviderAddress address, ProviderVersion version) {
        OriginHttpClient.Document document = versionDocument(mirrorBase, address, version);
        ReleaseEvidence evidence = ReleaseEvidence.fromParentMirror(document.finalUri(), document.body());
        release(address, version, evidence.parentMirror());
        return evidence;
    }

    private OriginHttpClient.Document versionDocument(
            URI mirrorBase, ProviderAddress address, ProviderVersion version) {
        URI url = providerBase(mirrorBase, address).resolve(version.canonical() + ".json");
        String what = "version " + version + " of " + address;
        OriginHttpClient.Document document =
                http.getDocument(address.hostname(), url, what, OriginObserver.Operation.DOWNLOAD, token(address));
        if (document.status() == 404) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "version " + version + " of " + address + " is not in the network mirror " + mirrorBase + " (" + url
                            + " answered 404)");
        }
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        if (!ReleaseJudgement.isBeneath(document.finalUri(), mirrorBase)) {
            // What the parent vouches for is what it serves beneath its own URL, not where it redirects to.
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    address + " " + version
                            + ": the network mirror " + mirrorBase + " redirected its version document to "
                            + document.finalUri() + ", which is not beneath the network mirror " + mirrorBase);
        }
        return document;
    }

    /** Opens an archive the parent lists; the host's token goes along only to the parent's own authority. */
    public OriginHttpClient.ArchiveStream openArchive(
            URI mirrorBase, ProviderAddress address, ProviderVersion version, VerifiedPackage pkg, URI url) {
        return http.openArchive(
                address.hostname(),
                url,
                "the archive of " + address + " " + version + " " + pkg.platform(),
                OriginHttpClient.sameAuthority(url, mirrorBase) ? token(address) : null);
    }

    /**
     * Reads the parent's version document again for a platform's current URL (a parent that signs its archive
     * URLs lets them expire); the platform must still have one of the hashes that were verified.
     */
    public URI refreshDownloadUrl(
            URI mirrorBase, ProviderAddress address, ProviderVersion version, VerifiedPackage pkg) {
        OriginHttpClient.Document document = versionDocument(mirrorBase, address, version);
        VerifiedPackage fresh = release(
                        address, version, new ReleaseEvidence.ParentDocument(document.finalUri(), document.body()))
                .find(pkg.platform())
                .orElseThrow(() -> new OriginException(
                        OriginException.Reason.NOT_FOUND,
                        "the network mirror " + mirrorBase + " no longer lists " + address + " " + version + " "
                                + pkg.platform()));
        boolean sameSha = fresh.sha256() != null && fresh.sha256().equals(pkg.sha256());
        boolean sameH1 = fresh.h1().stream().anyMatch(pkg.h1()::contains);
        if (!sameSha && !sameH1) {
            throw new VerificationException(
                    VerificationException.Check.CHECKSUM_LISTING,
                    "the network mirror " + mirrorBase + " now lists other hashes for " + address + " " + version + " "
                            + pkg.platform());
        }
        return fresh.downloadUrl();
    }

    /** The packages a parent's version document lists, each with the hashes it publishes. */
    static VerifiedRelease release(
            ProviderAddress address, ProviderVersion version, ReleaseEvidence.ParentDocument parent) {
        String what = "version " + version + " of " + address + " from the network mirror "
                + parent.url().getAuthority();
        // The platforms are the keys of a map, which the CLI matches exactly; url and hashes are fields.
        JsonNode archives = OriginJson.member(OriginJson.read(parent.document(), what), "archives");
        if (!archives.isObject()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " has no 'archives' object");
        }
        Map<Platform, VerifiedPackage> packages = new HashMap<>();
        for (Map.Entry<String, JsonNode> archive : archives.properties()) {
            Platform platform;
            URI url;
            try {
                platform = Platform.parse(archive.getKey());
                url = parent.url()
                        .resolve(OriginJson.member(archive.getValue(), "url").asText(""));
            } catch (IllegalArgumentException e) {
                LOG.debug("{}: skipping archive {}: {}", what, archive.getKey(), e.getMessage());
                continue;
            }
            String sha256 = null;
            List<String> h1 = new ArrayList<>();
            for (JsonNode hash : OriginJson.member(archive.getValue(), "hashes")) {
                String text = hash.asText("");
                if (text.startsWith("zh:")
                        && SHA256.matcher(text.substring(3).toLowerCase(Locale.ROOT))
                                .matches()) {
                    sha256 = text.substring(3).toLowerCase(Locale.ROOT);
                } else if (text.startsWith("h1:")) {
                    h1.add(text);
                }
            }
            if (sha256 == null && h1.isEmpty()
                    || url.getPath() == null
                    || url.getPath().isEmpty()) {
                LOG.warn(
                        "{}: leaving out {}: the mirror publishes no hash (or no URL) to check its archive against",
                        what,
                        platform);
                continue;
            }
            String path = url.getRawPath();
            String filename = URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1), StandardCharsets.UTF_8);
            packages.put(
                    platform, new VerifiedPackage(platform, filename, url, sha256, VerifiedPackage.PARENT_MIRROR, h1));
        }
        if (packages.isEmpty() && archives.size() > 0) {
            throw new VerificationException(
                    VerificationException.Check.CHECKSUM_LISTING,
                    what + " lists no archive with a hash to check it against");
        }
        return new VerifiedRelease(address, version, packages);
    }

    private String token(ProviderAddress address) {
        return credentials.tokenFor(address.hostname()).orElse(null);
    }

    private static URI providerBase(URI mirrorBase, ProviderAddress address) {
        String base = mirrorBase.toString().endsWith("/") ? mirrorBase.toString() : mirrorBase + "/";
        return URI.create(base).resolve(address.hostname() + "/" + address.namespace() + "/" + address.type() + "/");
    }
}
