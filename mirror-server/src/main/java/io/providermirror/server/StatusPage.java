package io.providermirror.server;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobSummary;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.metrics.OriginHealth;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The page at {@code /}: the CLI block for this server (with a copy button), the providers in the cache
 * (versions, platforms, size, when last fetched), the hit rate since start-up, each origin's health, and
 * links to the metrics and the documentation. Server-rendered HTML with a little CSS and a few lines of
 * script; rendered per request from the store's index (no file is read), off the event loop.
 */
public final class StatusPage {

    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\\[[0-9a-fA-F:.]{2,45}](:[0-9]{1,5})?");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /** One provider's cached archives, gathered from the store's index. */
    private static final class Provider {
        final TreeSet<String> versions = new TreeSet<>(StatusPage::compareVersions);
        final TreeSet<String> platforms = new TreeSet<>();
        long bytes;
        Instant lastFetched = Instant.EPOCH;
    }

    private final BlobStore store;
    private final MirrorMetrics metrics;
    private final String fallbackAuthority;
    private final Clock clock;
    private final Instant started;

    public StatusPage(BlobStore store, MirrorMetrics metrics, String fallbackAuthority, Clock clock) {
        this.store = store;
        this.metrics = metrics;
        this.fallbackAuthority = fallbackAuthority;
        this.clock = clock;
        this.started = clock.instant();
    }

    /** The page for a request whose {@code Host} header was {@code hostHeader} (untrusted, checked here). */
    public byte[] render(String hostHeader) {
        String authority = hostHeader != null && HOST.matcher(hostHeader).matches() ? hostHeader : fallbackAuthority;
        Map<String, Provider> providers = providers(store.list());
        StringBuilder html = new StringBuilder(8192);
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>provider-mirror</title><style>").append(CSS).append("</style></head>\n<body>\n")
                .append("<header><h1>provider-mirror</h1><p class=\"muted\">version ")
                .append(escape(MirrorApplication.VERSION)).append(" &middot; up since ")
                .append(TIME.format(started)).append("</p></header>\n");
        html.append("<p>A caching network mirror for Terraform and OpenTofu providers. It fetches providers of any ")
                .append("registry on demand, verifies them against their origin's signed checksums, and serves them ")
                .append("from its cache from then on.</p>\n");
        useIt(html, authority);
        summary(html, providers);
        origins(html);
        providerTable(html, providers);
        html.append("<footer><a href=\"/metrics\">/metrics</a> &middot; <a href=\"/healthz\">/healthz</a> &middot; ")
                .append("<a href=\"/readyz\">/readyz</a> &middot; <a href=\"/docs\">documentation</a> &middot; ")
                .append("<a href=\"https://developer.hashicorp.com/terraform/internals/provider-network-mirror-protocol\">")
                .append("network mirror protocol</a></footer>\n")
                .append("<script>").append(SCRIPT).append("</script>\n</body></html>\n");
        return html.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void useIt(StringBuilder html, String authority) {
        html.append("<section><h2>Use it</h2><p>Put this block in your CLI configuration (<code>~/.terraformrc</code>, ")
                .append("<code>~/.tofurc</code> or the file named by <code>TF_CLI_CONFIG_FILE</code>), then run ")
                .append("<code>terraform init</code> or <code>tofu init</code> as usual.</p>\n")
                .append("<div class=\"block\"><pre id=\"cli-block\"><code>")
                .append(escape(CliConfigBlock.forAuthority(authority)))
                .append("</code></pre><button type=\"button\" id=\"copy\">Copy</button></div></section>\n");
    }

    private void summary(StringBuilder html, Map<String, Provider> providers) {
        double hits = metrics.lookups(MirrorMetrics.LookupResult.HIT);
        double stale = metrics.lookups(MirrorMetrics.LookupResult.STALE);
        double total = hits + stale + metrics.lookups(MirrorMetrics.LookupResult.MISS);
        String hitRate = total == 0 ? "&ndash;" : String.format(Locale.ROOT, "%.1f%%", 100 * (hits + stale) / total);
        html.append("<section><h2>At a glance</h2><dl class=\"cards\">")
                .append("<div><dt>Providers cached</dt><dd id=\"providers-cached\">").append(providers.size()).append("</dd></div>")
                .append("<div><dt>Archives cached</dt><dd id=\"archives-cached\">").append(store.count()).append("</dd></div>")
                .append("<div><dt>Cache size</dt><dd>").append(bytes(store.totalBytes())).append("</dd></div>")
                .append("<div><dt>Hit rate since start-up</dt><dd id=\"hit-rate\">").append(hitRate)
                .append("</dd><dd class=\"muted\">").append(String.format(Locale.ROOT, "%.0f of %.0f requests", hits + stale, total))
                .append("</dd></div></dl></section>\n");
    }

    private void origins(StringBuilder html) {
        List<OriginHealth.Snapshot> origins = metrics.originHealth().snapshot();
        html.append("<section><h2>Origins</h2>");
        if (origins.isEmpty()) {
            html.append("<p class=\"muted\">No origin contacted since start-up.</p></section>\n");
            return;
        }
        html.append("<table id=\"origins\"><thead><tr><th>Host</th><th>Health</th><th>Requests ok / failed</th>")
                .append("<th>Last success</th><th>Last failure</th></tr></thead><tbody>\n");
        for (OriginHealth.Snapshot origin : origins) {
            html.append("<tr><td>").append(escape(origin.host())).append("</td><td>")
                    .append(origin.healthy() ? "<span class=\"ok\">healthy</span>" : "<span class=\"bad\">failing</span>")
                    .append("</td><td>").append(origin.succeeded()).append(" / ").append(origin.failed())
                    .append("</td><td>").append(time(origin.lastSuccess())).append("</td><td>")
                    .append(time(origin.lastFailure()));
            if (origin.lastFailureMessage() != null) {
                html.append("<div class=\"muted small\">").append(escape(origin.lastFailureMessage())).append("</div>");
            }
            html.append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    private void providerTable(StringBuilder html, Map<String, Provider> providers) {
        html.append("<section><h2>Cached providers</h2>");
        if (providers.isEmpty()) {
            html.append("<p class=\"muted\">Nothing cached yet: the first <code>init</code> through this mirror fills it.</p>")
                    .append("</section>\n");
            return;
        }
        html.append("<table id=\"providers\"><thead><tr><th>Provider</th><th>Versions</th><th>Platforms</th>")
                .append("<th>Size</th><th>Last fetched</th></tr></thead><tbody>\n");
        for (Map.Entry<String, Provider> entry : providers.entrySet()) {
            Provider provider = entry.getValue();
            html.append("<tr><td><code>").append(escape(entry.getKey())).append("</code></td><td>")
                    .append(escape(String.join(", ", provider.versions.descendingSet()))).append("</td><td>")
                    .append(escape(String.join(", ", provider.platforms))).append("</td><td>")
                    .append(bytes(provider.bytes)).append("</td><td>").append(time(provider.lastFetched))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }

    /** Archives by provider, from keys {@code <hostname>/<namespace>/<type>/<version>/terraform-provider-...zip}. */
    private static Map<String, Provider> providers(List<BlobSummary> blobs) {
        Map<String, Provider> providers = new TreeMap<>();
        for (BlobSummary blob : blobs) {
            List<String> segments = blob.key().segments();
            if (segments.size() != 5) {
                continue;
            }
            String type = segments.get(2);
            String version = segments.get(3);
            String prefix = "terraform-provider-" + type + "_" + version + "_";
            String file = segments.get(4);
            Provider provider = providers.computeIfAbsent(segments.get(0) + "/" + segments.get(1) + "/" + type,
                    address -> new Provider());
            provider.versions.add(version);
            if (file.startsWith(prefix) && file.endsWith(".zip")) {
                provider.platforms.add(file.substring(prefix.length(), file.length() - ".zip".length()));
            }
            provider.bytes += blob.size();
            if (blob.committedAt().isAfter(provider.lastFetched)) {
                provider.lastFetched = blob.committedAt();
            }
        }
        return providers;
    }

    /** Orders versions numerically where they are numbers (1.10.0 after 1.9.0). */
    private static int compareVersions(String a, String b) {
        String[] x = a.split("[.+-]");
        String[] y = b.split("[.+-]");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = x[i].matches("[0-9]{1,9}") && y[i].matches("[0-9]{1,9}")
                    ? Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i])) : x[i].compareTo(y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    private String time(Instant instant) {
        if (instant == null || instant.equals(Instant.EPOCH)) {
            return "&ndash;";
        }
        long minutes = ChronoUnit.MINUTES.between(instant, clock.instant());
        String ago = minutes < 1 ? "just now" : minutes < 120 ? minutes + " min ago" : minutes / 60 + " h ago";
        return "<span title=\"" + TIME.format(instant) + "\">" + ago + "</span>";
    }

    private static String bytes(long bytes) {
        return io.providermirror.server.config.DataSize.format(bytes);
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static final String CSS = "body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:72rem;"
            + "margin:2rem auto;padding:0 1.25rem;line-height:1.5;color:#1d1d1f;background:#fff}"
            + "header h1{margin-bottom:0}h2{margin-top:2rem;border-bottom:1px solid #e5e5ea;padding-bottom:.25rem}"
            + ".muted{color:#6e6e73}.small{font-size:.85em}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}"
            + ".block{position:relative}pre{background:#f4f4f6;padding:1rem;border-radius:8px;overflow-x:auto}"
            + "#copy{position:absolute;top:.6rem;right:.6rem;padding:.3rem .8rem;border:1px solid #c7c7cc;"
            + "border-radius:6px;background:#fff;cursor:pointer}#copy:hover{background:#f0f0f5}"
            + ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem}"
            + ".cards div{background:#f4f4f6;border-radius:8px;padding:.8rem 1rem}.cards dt{color:#6e6e73;font-size:.9em}"
            + ".cards dd{margin:0;font-size:1.5em;font-weight:600}.cards dd.muted{font-size:.85em;font-weight:400}"
            + "table{border-collapse:collapse;width:100%;font-size:.95em}th,td{text-align:left;padding:.45rem .6rem;"
            + "border-bottom:1px solid #e5e5ea;vertical-align:top}th{color:#6e6e73;font-weight:500}"
            + ".ok{color:#1a7f37;font-weight:600}.bad{color:#c62828;font-weight:600}"
            + "footer{margin:2.5rem 0 1rem;color:#6e6e73}a{color:#0a5bd3}";

    private static final String SCRIPT = "(function(){var b=document.getElementById('copy');"
            + "var t=document.getElementById('cli-block').innerText;"
            + "b.addEventListener('click',function(){function done(){b.textContent='Copied';"
            + "setTimeout(function(){b.textContent='Copy';},1500);}"
            + "if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done);}"
            + "else{var r=document.createRange();r.selectNodeContents(document.getElementById('cli-block'));"
            + "var s=window.getSelection();s.removeAllRanges();s.addRange(r);document.execCommand('copy');done();}});"
            + "document.documentElement.setAttribute('data-ready','yes');})();";
}
