package io.providermirror.server.status;

import io.providermirror.server.config.DataSize;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * What the status page's views share: the document head with its style sheet, the footer, escaping, and how
 * times and sizes are written. Every text that did not come from this class is escaped before it is written.
 */
final class PageHtml {

    static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final Clock clock;

    PageHtml(Clock clock) {
        this.clock = clock;
    }

    /** Opens a page titled {@code title} (escaped here) with the shared style sheet. */
    static void head(StringBuilder html, String title) {
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>")
                .append(escape(title))
                .append("</title><style>")
                .append(CSS)
                .append("</style></head>\n<body>\n");
    }

    /** The links every page ends with, and the closing tags; {@code script} (trusted) runs last, if given. */
    static void foot(StringBuilder html, String script) {
        html.append("<footer><a href=\"/\">status</a> &middot; <a href=\"/metrics\">/metrics</a> &middot; ")
                .append("<a href=\"/healthz\">/healthz</a> &middot; <a href=\"/readyz\">/readyz</a> &middot; ")
                .append("<a href=\"/docs\">documentation</a> &middot; ")
                .append(
                        "<a href=\"https://developer.hashicorp.com/terraform/internals/provider-network-mirror-protocol\">")
                .append("network mirror protocol</a></footer>\n");
        if (script != null) {
            html.append("<script>").append(script).append("</script>\n");
        }
        html.append("</body></html>\n");
    }

    /** How long ago {@code instant} was, with the exact time as a tooltip; a dash when it never happened. */
    String ago(Instant instant) {
        if (instant == null || instant.equals(Instant.EPOCH)) {
            return "&ndash;";
        }
        long minutes = ChronoUnit.MINUTES.between(instant, clock.instant());
        String ago = minutes < 1
                ? "just now"
                : minutes < 120
                        ? minutes + " min ago"
                        : minutes < 48 * 60 ? minutes / 60 + " h ago" : minutes / (24 * 60) + " days ago";
        return "<span title=\"" + TIME.format(instant) + "\">" + ago + "</span>";
    }

    Instant now() {
        return clock.instant();
    }

    static String bytes(long bytes) {
        return DataSize.format(bytes);
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
            + "h3{margin:1.5rem 0 .25rem}"
            + ".muted{color:#6e6e73}.small{font-size:.85em}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}"
            + ".block{position:relative}pre{background:#f4f4f6;padding:1rem;border-radius:8px;overflow-x:auto}"
            + ".block button{position:absolute;top:.6rem;right:.6rem;padding:.3rem .8rem;border:1px solid #c7c7cc;"
            + "border-radius:6px;background:#fff;cursor:pointer}.block button:hover{background:#f0f0f5}"
            + ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem}"
            + ".cards div{background:#f4f4f6;border-radius:8px;padding:.8rem 1rem}.cards dt{color:#6e6e73;font-size:.9em}"
            + ".cards dd{margin:0;font-size:1.5em;font-weight:600}.cards dd.muted{font-size:.85em;font-weight:400}"
            + "table{border-collapse:collapse;width:100%;font-size:.95em}th,td{text-align:left;padding:.45rem .6rem;"
            + "border-bottom:1px solid #e5e5ea;vertical-align:top}th{color:#6e6e73;font-weight:500}"
            + "td.hashes code{display:block;font-size:.8em;word-break:break-all}"
            + "td code,td.wrap{overflow-wrap:anywhere}table{table-layout:auto}"
            + ".offline{background:#fff4e5;border:1px solid #b35c00;border-radius:8px;padding:.6rem 1rem}"
            + ".ok{color:#1a7f37;font-weight:600}.bad{color:#c62828;font-weight:600}.warn{color:#b35c00;font-weight:600}"
            + ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}"
            + ".charts figure{margin:0;background:#f4f4f6;border-radius:8px;padding:.6rem .8rem}"
            + ".charts figcaption{color:#6e6e73;font-size:.9em}.charts figcaption b{color:#1d1d1f}"
            + ".charts svg{display:block;width:100%;height:auto}"
            + "ul.trust{padding-left:1.2rem}ul.trust li{margin:.4rem 0}"
            + "footer{margin:2.5rem 0 1rem;color:#6e6e73}a{color:#0a5bd3}";
}
