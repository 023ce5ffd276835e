package io.providermirror.server.status;

import io.providermirror.model.ProviderAddress;
import io.providermirror.server.report.MirrorStatus;
import io.providermirror.server.report.StatusDocuments;
import io.providermirror.server.report.StatusReports;
import io.providermirror.server.tls.GeneratedCa;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * The page at {@code /}: the CLI block for this server (with a copy button), how to trust the mirror's own CA
 * when it generated one, the providers in the cache (versions with their platforms, size, when last fetched;
 * each linked to its {@linkplain ProviderStatusView own view}), the hit rate since start-up, the last hour's
 * traffic as a chart, each origin's health and the recent problems, and links to the metrics and the
 * documentation. Server-rendered HTML with a little CSS and a few lines of script, rendered per request off the
 * event loop from the mirror's {@link MirrorStatus} (what the operator API's {@code GET /api/v1/status} answers;
 * its clients are what {@code GET /api/v1/clients} answers): the page reads no engine class itself.
 */
public final class StatusPage {

    /** Where the view of one provider is: {@code /status/providers/<hostname>/<namespace>/<type>}. */
    public static final String PROVIDER_PATH = "/status/providers/";
    /** Versions listed per provider on the front page; the provider's own view lists them all. */
    private static final int VERSIONS_SHOWN = 5;

    private final StatusReports reports;
    private final ModulesSection modules;
    private final String fallbackAuthority;
    private final PageHtml page;
    private final OriginsSection origins;
    private final ProviderStatusView providerView;
    private final GeneratedCa ca;
    private final Collection<String> configuredHosts;
    private final String logVerifierKey;

    /**
     * @param reports           the mirror's status (clients, inventory and policy included), which the page renders
     * @param configuredHosts   the configured origins' hostnames
     * @param parentMirrorHosts the configured hosts reached through a parent network mirror, which get no
     *                          providers.v1 service in the host blocks shown
     * @param caPem             the CA certificate the mirror generated for itself (PEM), or null when it has none
     * @param logVerifierKey    the transparency log's verifier key, or null for a mirror that keeps no log
     */
    public StatusPage(
            StatusReports reports,
            Collection<String> configuredHosts,
            Collection<String> parentMirrorHosts,
            byte[] caPem,
            String fallbackAuthority,
            Clock clock,
            String logVerifierKey) {
        this.reports = reports;
        this.logVerifierKey = logVerifierKey;
        this.configuredHosts = java.util.List.copyOf(configuredHosts);
        this.modules = new ModulesSection(configuredHosts, parentMirrorHosts);
        this.fallbackAuthority = fallbackAuthority;
        this.page = new PageHtml(clock);
        this.origins = new OriginsSection(page);
        this.providerView = new ProviderStatusView(page);
        this.ca = caPem == null ? null : GeneratedCa.of(caPem);
    }

    /** The CA certificate clients must trust (PEM), when the mirror generated its own; served at {@code /ca.pem}. */
    public Optional<byte[]> caCertificate() {
        return ca == null ? Optional.empty() : Optional.of(ca.pem());
    }

    /**
     * The page for a request whose {@code Host} header passed the HTTP front end's check of an authority
     * ({@code checkedHost}), or null when it did not or there was none: the page then names the configured one.
     */
    public byte[] render(String checkedHost) {
        String authority = checkedHost != null ? checkedHost : fallbackAuthority;
        MirrorStatus status = reports.status();
        StringBuilder html = new StringBuilder(16384);
        PageHtml.head(html, "provider-mirror");
        html.append("<header><h1>provider-mirror</h1><p class=\"muted\">version ")
                .append(PageHtml.escape(status.version()))
                .append(" &middot; up since ")
                .append(PageHtml.TIME.format(status.startedAt()))
                .append("</p></header>\n");
        if (status.offline()) {
            html.append("<p class=\"offline\" id=\"offline\"><b>OFFLINE</b> (<code>upstream.offline</code>): this ")
                    .append("mirror serves only what it holds and contacts no origin; what is not cached answers 404. ")
                    .append("Bring more in with <code>import</code>.</p>\n");
        }
        html.append("<p>A caching network mirror for Terraform and OpenTofu providers. It fetches providers of any ")
                .append("registry on demand, verifies them against their origin's signed checksums, and serves them ")
                .append("from its cache from then on.</p>\n");
        useIt(html, authority);
        modules.renderHostBlocks(html, authority);
        if (status.accessControlled()) {
            credentials(html, authority);
            ClientsSection.render(html, status.clients(), page);
        }
        if (ca != null) {
            ca.instructions(html);
        }
        summary(html, status.cache());
        if (logVerifierKey != null) {
            LogSection.render(html, logVerifierKey);
        }
        PolicySection.render(html, status.policy());
        TrafficChart.render(html, status.lastHour());
        origins.render(html, status);
        providerTable(html, status.providers());
        modules.renderCached(html, status.modules());
        InventorySection.render(html, status.mostRequested(), page);
        PageHtml.foot(html, SCRIPT);
        return html.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The view of one provider: its cached versions with their platforms, hashes, signing key and when each was
     * verified; empty when nothing of it is cached.
     */
    public Optional<byte[]> renderProvider(ProviderAddress address) {
        return reports.provider(address).map(providerView::render);
    }

    private static void useIt(StringBuilder html, String authority) {
        html.append(
                        "<section><h2>Use it</h2><p>Put this block in your CLI configuration (<code>~/.terraformrc</code>, ")
                .append("<code>~/.tofurc</code> or the file named by <code>TF_CLI_CONFIG_FILE</code>), then run ")
                .append("<code>terraform init</code> or <code>tofu init</code> as usual.</p>\n")
                .append("<div class=\"block\"><pre id=\"cli-block\"><code>")
                .append(PageHtml.escape(CliConfigBlock.forAuthority(authority)))
                .append("</code></pre><button type=\"button\" id=\"copy\">Copy</button></div></section>\n");
    }

    /**
     * What the page shows, as JSON for scripts ({@code /status.json}): the document the operator API's {@code GET
     * /api/v1/status} answers.
     */
    public byte[] renderJson() {
        return StatusDocuments.json(reports.status());
    }

    private void credentials(StringBuilder html, String authority) {
        html.append("<section><h2>Credentials</h2><p>Access control is on: every client needs a token from this ")
                .append("mirror's operators, in the same file. The first block is for the network mirror, the others ")
                .append(
                        "for the <code>host</code> blocks (the CLI sends the token of the registry host it routes).</p>\n")
                .append("<div class=\"block\"><pre id=\"credentials-blocks\"><code>")
                .append(PageHtml.escape(CliConfigBlock.credentialsBlocks(authority, configuredHosts)))
                .append("</code></pre></div></section>\n");
    }

    private static void summary(StringBuilder html, MirrorStatus.Cache cache) {
        long total = cache.lookupsTotal();
        String hitRate =
                total == 0 ? "&ndash;" : String.format(Locale.ROOT, "%.1f%%", 100.0 * cache.lookupsFromCache() / total);
        html.append("<section><h2>At a glance</h2><dl class=\"cards\">")
                .append("<div><dt>Providers cached</dt><dd id=\"providers-cached\">")
                .append(cache.providers())
                .append("</dd></div>")
                .append("<div><dt>Provider archives</dt><dd id=\"archives-cached\">")
                .append(cache.providerArchives())
                .append("</dd></div>")
                .append("<div><dt>Module versions cached</dt><dd id=\"modules-cached\">")
                .append(cache.moduleVersions())
                .append("</dd></div>")
                .append("<div><dt>Cache size</dt><dd>")
                .append(PageHtml.bytes(cache.bytes()))
                .append("</dd></div>")
                .append("<div><dt>Hit rate since start-up</dt><dd id=\"hit-rate\">")
                .append(hitRate)
                .append("</dd><dd class=\"muted\">")
                .append(cache.lookupsFromCache())
                .append(" of ")
                .append(total)
                .append(" requests</dd></div></dl></section>\n");
    }

    private void providerTable(StringBuilder html, java.util.List<MirrorStatus.Provider> providers) {
        html.append("<section><h2>Cached providers</h2>");
        if (providers.isEmpty()) {
            html.append(
                            "<p class=\"muted\">Nothing cached yet: the first <code>init</code> through this mirror fills it.</p>")
                    .append("</section>\n");
            return;
        }
        html.append("<table id=\"providers\"><thead><tr><th>Provider</th><th>Versions and their platforms</th>")
                .append("<th>Size</th><th>Last fetched</th></tr></thead><tbody>\n");
        for (MirrorStatus.Provider provider : providers) {
            String link = PROVIDER_PATH + provider.address();
            html.append("<tr><td><a href=\"")
                    .append(PageHtml.escape(link))
                    .append("\"><code>")
                    .append(PageHtml.escape(provider.address()))
                    .append("</code></a></td><td>");
            int shown = 0;
            for (MirrorStatus.Version version : provider.versions()) {
                if (shown++ == VERSIONS_SHOWN) {
                    html.append("<div class=\"muted small\"><a href=\"")
                            .append(PageHtml.escape(link))
                            .append("\">and ")
                            .append(provider.versions().size() - VERSIONS_SHOWN)
                            .append(" more</a></div>");
                    break;
                }
                html.append("<div><b>")
                        .append(PageHtml.escape(version.version()))
                        .append("</b> ")
                        .append("<span class=\"muted small\">")
                        .append(PageHtml.escape(String.join(", ", version.platforms())))
                        .append("</span></div>");
            }
            html.append("</td><td>")
                    .append(PageHtml.bytes(provider.bytes()))
                    .append("</td><td>")
                    .append(page.ago(provider.lastFetched()))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    /** Each copy button copies its block: {@code copy} the provider_installation block, {@code copy-hosts} the host blocks. */
    private static final String SCRIPT = "(function(){function wire(bid,pid){var b=document.getElementById(bid);"
            + "var p=document.getElementById(pid);if(!b||!p){return;}var t=p.innerText;"
            + "b.addEventListener('click',function(){function done(){b.textContent='Copied';"
            + "setTimeout(function(){b.textContent='Copy';},1500);}"
            + "if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done);}"
            + "else{var r=document.createRange();r.selectNodeContents(p);"
            + "var s=window.getSelection();s.removeAllRanges();s.addRange(r);document.execCommand('copy');done();}});}"
            + "wire('copy','cli-block');wire('copy-hosts','host-blocks');"
            + "document.documentElement.setAttribute('data-ready','yes');})();";
}
