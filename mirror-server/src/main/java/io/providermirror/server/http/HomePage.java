package io.providermirror.server.http;

import io.providermirror.server.CliConfigBlock;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The short page at {@code /}: what this server is and the CLI configuration block for its URL, taken from
 * the request's {@code Host} header when that is a plain host name (and from the server's own URL otherwise).
 */
final class HomePage {

    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\\[[0-9a-fA-F:.]{2,45}](:[0-9]{1,5})?");

    private final String fallbackAuthority;

    HomePage(String fallbackAuthority) {
        this.fallbackAuthority = fallbackAuthority;
    }

    byte[] render(String hostHeader) {
        String authority = hostHeader != null && HOST.matcher(hostHeader).matches() ? hostHeader : fallbackAuthority;
        String html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>provider-mirror</title>"
                + "<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;"
                + "line-height:1.5;color:#1d1d1f}pre{background:#f4f4f6;padding:1rem;border-radius:6px;"
                + "overflow-x:auto}code{font-family:ui-monospace,monospace}</style></head><body>\n"
                + "<h1>provider-mirror</h1>\n"
                + "<p>This is a caching network mirror for Terraform and OpenTofu providers. It fetches providers of "
                + "any registry on demand, verifies them against their origin's signed checksums, and serves them "
                + "from its cache from then on.</p>\n"
                + "<h2>Use it</h2>\n<p>Put this block in your CLI configuration (<code>~/.terraformrc</code>, "
                + "<code>~/.tofurc</code> or the file named by <code>TF_CLI_CONFIG_FILE</code>):</p>\n"
                + "<pre><code>" + escape(CliConfigBlock.forAuthority(authority)) + "</code></pre>\n"
                + "<p>Then run <code>terraform init</code> or <code>tofu init</code> as usual.</p>\n"
                + "</body></html>\n";
        return html.getBytes(StandardCharsets.UTF_8);
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
