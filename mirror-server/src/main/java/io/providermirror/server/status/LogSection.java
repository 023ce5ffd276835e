package io.providermirror.server.status;

/** The status page's section on the transparency log: where it is served and the key its checkpoints verify with. */
final class LogSection {

    private LogSection() {}

    static void render(StringBuilder html, String verifierKey) {
        html.append("<section><h2>Transparency log</h2><p>Every decision that lets something in or keeps it out ")
                .append(
                        "(a release verified, an archive committed, a module pinned, an import, a refusal) is appended ")
                .append("to a tamper-evident log served at <a href=\"/log/checkpoint\"><code>/log/</code></a> ")
                .append("(c2sp.org/tlog-tiles). Its checkpoints are signed by this verifier key:</p>\n")
                .append("<div class=\"block\"><pre id=\"log-verifier-key\"><code>")
                .append(PageHtml.escape(verifierKey))
                .append("</code></pre></div><p class=\"muted\">Check it with <code>provider-mirror log verify</code> ")
                .append(
                        "or any C2SP client; see the manual's <a href=\"/docs/transparency-log.md\">transparency log</a> ")
                .append("page.</p></section>\n");
    }
}
