package io.providermirror.server.status;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.BuildInfo;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.tls.GeneratedCa;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The page at {@code /}: the CLI block for this server (with a copy button), how to trust the mirror's own CA
 * when it generated one, the providers in the cache (versions with their platforms, size, when last fetched;
 * each linked to its {@linkplain ProviderStatusView own view}), the hit rate since start-up, the last hour's
 * traffic as a chart, each origin's health and the recent problems, and links to the metrics and the
 * documentation. Server-rendered HTML with a little CSS and a few lines of script; rendered per request from
 * the store's index (no file is read), off the event loop.
 */
public final class StatusPage {

    private static final Pattern HOST =
            Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\\[[0-9a-fA-F:.]{2,45}](:[0-9]{1,5})?");
    /** Where the view of one provider is: {@code /status/providers/<hostname>/<namespace>/<type>}. */
    public static final String PROVIDER_PATH = "/status/providers/";
    /** Versions listed per provider on the front page; the provider's own view lists them all. */
    private static final int VERSIONS_SHOWN = 5;

    /** One provider's cached archives, gathered from the store's index: platforms by version. */
    static final class Provider {
        final TreeMap<ProviderVersion, TreeSet<String>> versions = new TreeMap<>(java.util.Comparator.reverseOrder());
        long bytes;
        Instant lastFetched = Instant.EPOCH;

        long archives() {
            return versions.values().stream().mapToLong(TreeSet::size).sum();
        }
    }

    private final BlobStore store;
    private final ModulesSection modules;
    private final MirrorMetrics metrics;
    private final String fallbackAuthority;
    private final PageHtml page;
    private final Instant started;
    private final OriginsSection origins;
    private final ProviderStatusView providerView;
    private final GeneratedCa ca;
    private final ProviderMirror mirror;
    private final ModuleMirror moduleMirror;
    private final Map<String, String> configuredOrigins;
    private final String logVerifierKey;
    /** The usage inventory whose most requested items the page lists, once set. */
    private volatile UsageInventory inventory;

    /**
     * @param configuredOrigins configured origins by hostname, each with where it is reached (as the banner says it)
     * @param parentMirrorHosts the configured hosts reached through a parent network mirror, which get no
     *                          providers.v1 service in the host blocks shown
     * @param caPem             the CA certificate the mirror generated for itself (PEM), or null when it has none
     */
    public StatusPage(
            BlobStore store,
            MirrorMetrics metrics,
            ProviderMirror mirror,
            ModuleMirror modules,
            Map<String, String> configuredOrigins,
            java.util.Set<String> parentMirrorHosts,
            byte[] caPem,
            String fallbackAuthority,
            Clock clock) {
        this(
                store,
                metrics,
                mirror,
                modules,
                configuredOrigins,
                parentMirrorHosts,
                caPem,
                fallbackAuthority,
                clock,
                null);
    }

    /** As the other constructor, for a mirror keeping a transparency log with verifier key {@code logVerifierKey}. */
    public StatusPage(
            BlobStore store,
            MirrorMetrics metrics,
            ProviderMirror mirror,
            ModuleMirror modules,
            Map<String, String> configuredOrigins,
            java.util.Set<String> parentMirrorHosts,
            byte[] caPem,
            String fallbackAuthority,
            Clock clock,
            String logVerifierKey) {
        this.logVerifierKey = logVerifierKey;
        this.modules = new ModulesSection(modules, configuredOrigins.keySet(), parentMirrorHosts);
        this.mirror = mirror;
        this.moduleMirror = modules;
        this.configuredOrigins = Map.copyOf(configuredOrigins);
        this.store = store;
        this.metrics = metrics;
        this.fallbackAuthority = fallbackAuthority;
        this.page = new PageHtml(clock);
        this.started = clock.instant();
        this.origins = new OriginsSection(metrics.originHealth(), configuredOrigins, page);
        this.providerView = new ProviderStatusView(mirror, page);
        this.ca = caPem == null ? null : GeneratedCa.of(caPem);
    }

    /** Lists the items {@code inventory} counted most on the page. */
    public void inventory(UsageInventory inventory) {
        this.inventory = inventory;
    }

    /** The CA certificate clients must trust (PEM), when the mirror generated its own; served at {@code /ca.pem}. */
    public Optional<byte[]> caCertificate() {
        return ca == null ? Optional.empty() : Optional.of(ca.pem());
    }

    /** The page for a request whose {@code Host} header was {@code hostHeader} (untrusted, checked here). */
    public byte[] render(String hostHeader) {
        String authority = hostHeader != null && HOST.matcher(hostHeader).matches() ? hostHeader : fallbackAuthority;
        Map<String, Provider> providers = providers(store.list());
        StringBuilder html = new StringBuilder(16384);
        PageHtml.head(html, "provider-mirror");
        html.append("<header><h1>provider-mirror</h1><p class=\"muted\">version ")
                .append(PageHtml.escape(BuildInfo.VERSION))
                .append(" &middot; up since ")
                .append(PageHtml.TIME.format(started))
                .append("</p></header>\n");
        if (mirror.offline()) {
            html.append("<p class=\"offline\" id=\"offline\"><b>OFFLINE</b> (<code>upstream.offline</code>): this ")
                    .append("mirror serves only what it holds and contacts no origin; what is not cached answers 404. ")
                    .append("Bring more in with <code>import</code>.</p>\n");
        }
        html.append("<p>A caching network mirror for Terraform and OpenTofu providers. It fetches providers of any ")
                .append("registry on demand, verifies them against their origin's signed checksums, and serves them ")
                .append("from its cache from then on.</p>\n");
        useIt(html, authority);
        modules.renderHostBlocks(html, authority);
        if (mirror.accessControlled()) {
            credentials(html, authority);
        }
        if (ca != null) {
            ca.instructions(html);
        }
        summary(html, providers, moduleMirror.storedModules().size());
        if (logVerifierKey != null) {
            LogSection.render(html, logVerifierKey);
        }
        TrafficChart.render(html, metrics.traffic().lastHour());
        origins.render(html);
        providerTable(html, providers);
        modules.renderCached(html);
        UsageInventory counted = inventory;
        if (counted != null) {
            InventorySection.render(html, counted, page);
        }
        PageHtml.foot(html, SCRIPT);
        return html.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The view of one provider: its cached versions with their platforms, hashes, signing key and when each was
     * verified; empty when nothing of it is cached.
     */
    public Optional<byte[]> renderProvider(ProviderAddress address) {
        return providerView.render(address, store.list());
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
     * What the page shows, as JSON for scripts ({@code /status.json}): the cache, the hit rate, each origin's health,
     * the recent problems, the cached providers and modules.
     */
    public byte[] renderJson() {
        return StatusJson.render(
                started,
                mirror.offline(),
                providers(store.list()),
                moduleMirror.storedModules(),
                store.totalBytes(),
                metrics,
                configuredOrigins);
    }

    private void credentials(StringBuilder html, String authority) {
        html.append("<section><h2>Credentials</h2><p>Access control is on: every client needs a token from this ")
                .append("mirror's operators, in the same file. The first block is for the network mirror, the others ")
                .append(
                        "for the <code>host</code> blocks (the CLI sends the token of the registry host it routes).</p>\n")
                .append("<div class=\"block\"><pre id=\"credentials-blocks\"><code>")
                .append(PageHtml.escape(CliConfigBlock.credentialsBlocks(authority, configuredOrigins.keySet())))
                .append("</code></pre></div></section>\n");
    }

    private void summary(StringBuilder html, Map<String, Provider> providers, int moduleVersions) {
        double hits = metrics.lookups(MirrorMetrics.LookupResult.HIT);
        double stale = metrics.lookups(MirrorMetrics.LookupResult.STALE);
        double total = hits + stale + metrics.lookups(MirrorMetrics.LookupResult.MISS);
        String hitRate = total == 0 ? "&ndash;" : String.format(Locale.ROOT, "%.1f%%", 100 * (hits + stale) / total);
        html.append("<section><h2>At a glance</h2><dl class=\"cards\">")
                .append("<div><dt>Providers cached</dt><dd id=\"providers-cached\">")
                .append(providers.size())
                .append("</dd></div>")
                .append("<div><dt>Provider archives</dt><dd id=\"archives-cached\">")
                .append(providers.values().stream()
                        .mapToLong(Provider::archives)
                        .sum())
                .append("</dd></div>")
                .append("<div><dt>Module versions cached</dt><dd id=\"modules-cached\">")
                .append(moduleVersions)
                .append("</dd></div>")
                .append("<div><dt>Cache size</dt><dd>")
                .append(PageHtml.bytes(store.totalBytes()))
                .append("</dd></div>")
                .append("<div><dt>Hit rate since start-up</dt><dd id=\"hit-rate\">")
                .append(hitRate)
                .append("</dd><dd class=\"muted\">")
                .append(String.format(Locale.ROOT, "%.0f of %.0f requests", hits + stale, total))
                .append("</dd></div></dl></section>\n");
    }

    private void providerTable(StringBuilder html, Map<String, Provider> providers) {
        html.append("<section><h2>Cached providers</h2>");
        if (providers.isEmpty()) {
            html.append(
                            "<p class=\"muted\">Nothing cached yet: the first <code>init</code> through this mirror fills it.</p>")
                    .append("</section>\n");
            return;
        }
        html.append("<table id=\"providers\"><thead><tr><th>Provider</th><th>Versions and their platforms</th>")
                .append("<th>Size</th><th>Last fetched</th></tr></thead><tbody>\n");
        for (Map.Entry<String, Provider> entry : providers.entrySet()) {
            Provider provider = entry.getValue();
            String link = PROVIDER_PATH + entry.getKey();
            html.append("<tr><td><a href=\"")
                    .append(PageHtml.escape(link))
                    .append("\"><code>")
                    .append(PageHtml.escape(entry.getKey()))
                    .append("</code></a></td><td>");
            int shown = 0;
            for (Map.Entry<ProviderVersion, TreeSet<String>> version : provider.versions.entrySet()) {
                if (shown++ == VERSIONS_SHOWN) {
                    html.append("<div class=\"muted small\"><a href=\"")
                            .append(PageHtml.escape(link))
                            .append("\">and ")
                            .append(provider.versions.size() - VERSIONS_SHOWN)
                            .append(" more</a></div>");
                    break;
                }
                html.append("<div><b>")
                        .append(PageHtml.escape(version.getKey().canonical()))
                        .append("</b> ")
                        .append("<span class=\"muted small\">")
                        .append(PageHtml.escape(String.join(", ", version.getValue())))
                        .append("</span></div>");
            }
            html.append("</td><td>")
                    .append(PageHtml.bytes(provider.bytes))
                    .append("</td><td>")
                    .append(page.ago(provider.lastFetched))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    /** Archives by provider, from keys {@code <hostname>/<namespace>/<type>/<version>/terraform-provider-...zip}. */
    static Map<String, Provider> providers(List<BlobSummary> blobs) {
        Map<String, Provider> providers = new TreeMap<>();
        for (BlobSummary blob : blobs) {
            List<String> segments = blob.key().segments();
            if (segments.size() != 5) {
                continue;
            }
            String type = segments.get(2);
            Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(3));
            Optional<Platform> platform = platformOf(type, segments.get(3), segments.get(4));
            if (version.isEmpty() || platform.isEmpty()) {
                continue;
            }
            Provider provider = providers.computeIfAbsent(
                    segments.get(0) + "/" + segments.get(1) + "/" + type, address -> new Provider());
            provider.versions
                    .computeIfAbsent(version.get(), v -> new TreeSet<>())
                    .add(platform.get().toString());
            provider.bytes += blob.size();
            if (blob.committedAt().isAfter(provider.lastFetched)) {
                provider.lastFetched = blob.committedAt();
            }
        }
        return providers;
    }

    /** The platform of an archive file {@code terraform-provider-<type>_<version>_<os>_<arch>.zip}, if it is one. */
    static Optional<Platform> platformOf(String type, String version, String file) {
        String prefix = "terraform-provider-" + type + "_" + version + "_";
        if (!file.startsWith(prefix) || !file.endsWith(".zip")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Platform.parse(file.substring(prefix.length(), file.length() - ".zip".length())));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
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
