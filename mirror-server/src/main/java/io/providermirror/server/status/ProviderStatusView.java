package io.providermirror.server.status;

import io.providermirror.cache.BlobSummary;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.providers.Releases;
import io.providermirror.upstream.VerifiedPackage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The status page's view of one provider ({@code /status/providers/<hostname>/<namespace>/<type>}): each cached
 * version with every platform its verified release has, whether that platform's archive is cached, its hashes
 * ({@code h1:} once the archive was verified, {@code zh:} from the signed SHA256SUMS), the key that signed it and
 * when the release was verified. Read from the store's index and the cache directory; never asks an origin.
 * Blocking: rendered off the event loop.
 */
final class ProviderStatusView {

    private final ProviderMirror mirror;
    private final PageHtml page;

    ProviderStatusView(ProviderMirror mirror, PageHtml page) {
        this.mirror = mirror;
        this.page = page;
    }

    /** The page, or empty when nothing of {@code address} is cached. */
    Optional<byte[]> render(ProviderAddress address, List<BlobSummary> blobs) {
        Map<ProviderVersion, Map<Platform, BlobSummary>> cached = cachedArchives(address, blobs);
        if (cached.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder html = new StringBuilder(8192);
        PageHtml.head(html, address + " - provider-mirror");
        html.append("<header><p><a href=\"/\">&larr; status page</a></p><h1><code>")
                .append(PageHtml.escape(address.toString()))
                .append("</code></h1><p class=\"muted\">")
                .append(cached.size())
                .append(cached.size() == 1 ? " version" : " versions")
                .append(" cached. <code>zh:</code> is the archive's sha256 from the origin's signed SHA256SUMS; ")
                .append("<code>h1:</code> (what lock files record) is known once the mirror verified the archive.")
                .append("</p></header>\n");
        cached.forEach((version, archives) -> version(html, address, version, archives));
        PageHtml.foot(html, null);
        return Optional.of(html.toString().getBytes(StandardCharsets.UTF_8));
    }

    private void version(
            StringBuilder html, ProviderAddress address, ProviderVersion version, Map<Platform, BlobSummary> archives) {
        String id = "v" + version.canonical().replaceAll("[^0-9A-Za-z]", "-");
        html.append("<section id=\"")
                .append(id)
                .append("\"><h2>")
                .append(PageHtml.escape(version.canonical()))
                .append("</h2>");
        Optional<Releases.Stored> stored = mirror.storedRelease(address, version);
        if (stored.isEmpty()) {
            html.append("<p class=\"bad\">The cache holds archives of this version but not its verified release; ")
                    .append("the next request for its version document verifies it again.</p></section>\n");
            return;
        }
        Releases.Stored release = stored.get();
        TreeSet<String> keys = new TreeSet<>();
        release.release().packages().values().forEach(pkg -> keys.add(signingKey(pkg.signingKeyId())));
        html.append("<p class=\"muted\">Verified ")
                .append(page.ago(release.verifiedAt()))
                .append(" (")
                .append(PageHtml.TIME.format(release.verifiedAt()))
                .append(") &middot; signed by ")
                .append(PageHtml.escape(String.join(", ", keys)))
                .append("</p>\n");
        html.append("<table class=\"platforms\"><thead><tr><th>Platform</th><th>Archive</th><th>Hashes</th>")
                .append("</tr></thead><tbody>\n");
        for (VerifiedPackage pkg : release.release().packages().values()) {
            BlobSummary blob = archives.get(pkg.platform());
            html.append("<tr><td><code>")
                    .append(PageHtml.escape(pkg.platform().toString()))
                    .append("</code></td><td>")
                    .append(
                            blob == null
                                    ? "<span class=\"muted\">not cached</span>"
                                    : "<span class=\"ok\">cached</span> " + PageHtml.bytes(blob.size())
                                            + "<div class=\"muted small\">" + page.ago(blob.committedAt()) + "</div>")
                    .append("</td><td class=\"hashes\">");
            for (String hash : hashes(pkg, release.h1().get(pkg.platform()))) {
                html.append("<code>").append(PageHtml.escape(hash)).append("</code>");
            }
            html.append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    private static List<String> hashes(VerifiedPackage pkg, String h1) {
        List<String> hashes = new ArrayList<>();
        if (h1 != null) {
            hashes.add(h1);
        }
        pkg.h1().stream().filter(hash -> !hashes.contains(hash)).forEach(hashes::add);
        if (pkg.sha256() != null) {
            hashes.add("zh:" + pkg.sha256());
        }
        return hashes;
    }

    private static String signingKey(String keyId) {
        return switch (keyId) {
            case VerifiedPackage.UNSIGNED -> "no key (unsigned, as this origin's policy allows)";
            case VerifiedPackage.PARENT_MIRROR -> "no key (hashes published by the parent mirror)";
            default -> "key " + keyId;
        };
    }

    /** This provider's cached archives by version (newest first) and platform, from the store's index. */
    private static Map<ProviderVersion, Map<Platform, BlobSummary>> cachedArchives(
            ProviderAddress address, List<BlobSummary> blobs) {
        Map<ProviderVersion, Map<Platform, BlobSummary>> versions = new TreeMap<>(java.util.Comparator.reverseOrder());
        for (BlobSummary blob : blobs) {
            List<String> segments = blob.key().segments();
            if (segments.size() != 5
                    || !segments.get(0).equals(address.hostname())
                    || !segments.get(1).equals(address.namespace())
                    || !segments.get(2).equals(address.type())) {
                continue;
            }
            Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(3));
            Optional<Platform> platform = StatusPage.platformOf(address.type(), segments.get(3), segments.get(4));
            if (version.isPresent() && platform.isPresent()) {
                versions.computeIfAbsent(version.get(), v -> new TreeMap<>()).put(platform.get(), blob);
            }
        }
        return versions;
    }
}
