package io.providermirror.server.status;

import io.providermirror.server.report.ProviderStatus;
import io.providermirror.upstream.verify.VerifiedPackage;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

/**
 * The status page's view of one provider ({@code /status/providers/<hostname>/<namespace>/<type>}): each cached
 * version with every platform its verified release has, whether that platform's archive is cached, its hashes
 * ({@code h1:} once the archive was verified, {@code zh:} from the signed SHA256SUMS), the key that signed it and
 * when the release was verified; rendered from the {@link ProviderStatus} the operator API answers too.
 */
final class ProviderStatusView {

    private final PageHtml page;

    ProviderStatusView(PageHtml page) {
        this.page = page;
    }

    /** The page of {@code provider}. */
    byte[] render(ProviderStatus provider) {
        int count = provider.versions().size();
        StringBuilder html = new StringBuilder(8192);
        PageHtml.head(html, provider.address() + " - provider-mirror");
        html.append("<header><p><a href=\"/\">&larr; status page</a></p><h1><code>")
                .append(PageHtml.escape(provider.address()))
                .append("</code></h1><p class=\"muted\">")
                .append(count)
                .append(count == 1 ? " version" : " versions")
                .append(" cached. <code>zh:</code> is the archive's sha256 from the origin's signed SHA256SUMS; ")
                .append("<code>h1:</code> (what lock files record) is known once the mirror verified the archive.")
                .append("</p></header>\n");
        provider.versions().forEach(version -> version(html, version));
        PageHtml.foot(html, null);
        return html.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void version(StringBuilder html, ProviderStatus.Version version) {
        String id = "v" + version.version().replaceAll("[^0-9A-Za-z]", "-");
        html.append("<section id=\"")
                .append(id)
                .append("\"><h2>")
                .append(PageHtml.escape(version.version()))
                .append("</h2>");
        if (!version.verified()) {
            html.append("<p class=\"bad\">The cache holds archives of this version but not its verified release; ")
                    .append("the next request for its version document verifies it again.</p></section>\n");
            return;
        }
        TreeSet<String> keys = new TreeSet<>();
        version.signingKeys().forEach(key -> keys.add(signingKey(key)));
        html.append("<p class=\"muted\">Verified ")
                .append(page.ago(version.verifiedAt()))
                .append(" (")
                .append(PageHtml.TIME.format(version.verifiedAt()))
                .append(") &middot; signed by ")
                .append(PageHtml.escape(String.join(", ", keys)))
                .append("</p>\n");
        html.append("<table class=\"platforms\"><thead><tr><th>Platform</th><th>Archive</th><th>Hashes</th>")
                .append("</tr></thead><tbody>\n");
        for (ProviderStatus.Platform platform : version.platforms()) {
            html.append("<tr><td><code>")
                    .append(PageHtml.escape(platform.platform()))
                    .append("</code></td><td>")
                    .append(
                            platform.cached()
                                    ? "<span class=\"ok\">cached</span> " + PageHtml.bytes(platform.bytes())
                                            + "<div class=\"muted small\">" + page.ago(platform.cachedAt()) + "</div>"
                                    : "<span class=\"muted\">not cached</span>")
                    .append("</td><td class=\"hashes\">");
            for (String hash : platform.hashes()) {
                html.append("<code>").append(PageHtml.escape(hash)).append("</code>");
            }
            html.append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    private static String signingKey(String keyId) {
        return switch (keyId) {
            case VerifiedPackage.UNSIGNED -> "no key (unsigned, as this origin's policy allows)";
            case VerifiedPackage.PARENT_MIRROR -> "no key (hashes published by the parent mirror)";
            default -> "key " + keyId;
        };
    }
}
