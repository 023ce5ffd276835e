package io.providermirror.server.status;

import io.providermirror.server.report.MirrorStatus;
import java.util.Collection;
import java.util.List;

/**
 * The status page's part about registry modules: the {@code host} blocks that route them, and providers through
 * the providers.v1 face, to this mirror (with a copy button), the registry URL of each routed host for tools that
 * read a registry themselves, and the module versions the cache holds with what each is pinned by.
 */
final class ModulesSection {

    private final Collection<String> configuredHosts;
    private final Collection<String> parentMirrorHosts;

    ModulesSection(Collection<String> configuredHosts, Collection<String> parentMirrorHosts) {
        this.configuredHosts = List.copyOf(configuredHosts);
        this.parentMirrorHosts = List.copyOf(parentMirrorHosts);
    }

    void renderHostBlocks(StringBuilder html, String authority) {
        html.append("<section><h2>Modules, and complete lock files</h2><p>To install registry modules through this ")
                .append("mirror too (the client then needs no <code>git</code> and no access to their sources), add ")
                .append("these <code>host</code> blocks to the same file. Leave out the ")
                .append("<code>provider_installation</code> block above and providers install through them as well, ")
                .append("by the registry protocol: the CLI checks the origin's signature itself and records ")
                .append("<code>zh:</code> hashes for every platform in <code>.terraform.lock.hcl</code>.</p>\n")
                .append("<div class=\"block\"><pre id=\"host-blocks\"><code>")
                .append(PageHtml.escape(CliConfigBlock.hostBlocks(authority, configuredHosts, parentMirrorHosts)))
                .append("</code></pre><button type=\"button\" id=\"copy-hosts\">Copy</button></div>\n");
        html.append("<p>Tools that read a registry themselves (update bots such as Renovate) take a registry URL: ")
                .append("give them this mirror's URL for each host (see <a href=\"/docs/using.md\">using.md</a>, ")
                .append("Update bots).</p>\n<ul id=\"registry-urls\">");
        for (String url : CliConfigBlock.registryUrls(authority, configuredHosts)) {
            html.append("<li><code>").append(PageHtml.escape(url)).append("</code></li>");
        }
        html.append("</ul></section>\n");
    }

    /** The cached module versions, as {@link MirrorStatus#modules()} lists them (by address and version). */
    void renderCached(StringBuilder html, List<MirrorStatus.Module> stored) {
        html.append("<section><h2>Cached modules</h2>");
        if (stored.isEmpty()) {
            html.append("<p class=\"muted\" id=\"modules-none\">No module is cached yet.</p></section>\n");
            return;
        }
        html.append("<table id=\"modules\"><thead><tr><th>Module</th><th>Version</th><th>Source</th>")
                .append("<th>Pinned by</th><th>Size</th><th>Pinned at</th></tr></thead><tbody>\n");
        for (MirrorStatus.Module module : stored) {
            html.append("<tr><td>")
                    .append(PageHtml.escape(module.address()))
                    .append("</td><td>")
                    .append(PageHtml.escape(module.version()))
                    .append("</td><td>")
                    .append(PageHtml.escape(module.sourceKind()))
                    .append(" <span class=\"muted\">")
                    .append(PageHtml.escape(module.source()))
                    .append("</span></td><td><code>")
                    .append(PageHtml.escape(module.pinnedBy()))
                    .append("</code></td><td>")
                    .append(PageHtml.bytes(module.bytes()))
                    .append("</td><td>")
                    .append(PageHtml.TIME.format(module.pinnedAt()))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }
}
