package io.providermirror.server.providers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.model.Platform;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerifiedPackage;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Renders a version document ({@code <version>.json} of the network mirror protocol): for each platform let
 * in, the archive's relative URL and its hashes ({@code h1:} as computed here, or a parent mirror's, and the
 * signed {@code zh:}). Done once per release and served as bytes; once per response only when archive URLs
 * carry a signature.
 */
public final class VersionDocuments {

    private static final ObjectMapper JSON = new ObjectMapper();

    private VersionDocuments() {}

    /**
     * @param h1      the {@code h1:} hash of each platform's archive that was computed here
     * @param allowed the platforms the policy lets in
     * @param query   a query string for a platform's archive URL (such as its signature), or null for none
     */
    public static RenderedDocument render(
            VerifiedRelease release,
            Map<Platform, String> h1,
            Predicate<Platform> allowed,
            Function<Platform, String> query) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode archives = root.putObject("archives");
        for (VerifiedPackage pkg : release.packages().values()) {
            if (!allowed.test(pkg.platform())) {
                continue;
            }
            ObjectNode archive = archives.putObject(pkg.platform().toString());
            String suffix = query.apply(pkg.platform());
            archive.put(
                    "url",
                    CacheLayout.archiveFileName(release.address(), release.version(), pkg.platform())
                            + (suffix == null ? "" : "?" + suffix));
            ArrayNode hashes = archive.putArray("hashes");
            String h = h1.get(pkg.platform());
            if (h != null) {
                hashes.add(h);
            } else {
                // Through a parent mirror: its h1: hashes, which the archive is checked against, until it is seen.
                pkg.h1().forEach(hashes::add);
            }
            if (pkg.sha256() != null) {
                hashes.add(PackageHashes.zh(pkg.sha256()));
            }
        }
        try {
            return new RenderedDocument(JSON.writeValueAsBytes(root));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
