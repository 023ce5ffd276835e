package io.providermirror.server.status;

import io.providermirror.server.report.ClientStatus;
import java.util.List;

/**
 * The status page's section on the named clients ({@code auth.clients}, and plain tokens named after their hash):
 * each name, what it may reach, and when it was last seen by any instance sharing the cache (as
 * {@code GET /api/v1/clients} answers). Shown while access control is on.
 */
final class ClientsSection {

    private ClientsSection() {}

    static void render(StringBuilder html, List<ClientStatus> clients, PageHtml page) {
        html.append("<section><h2>Clients</h2>");
        if (clients.isEmpty()) {
            html.append("<p class=\"muted\" id=\"clients-none\">No client token is configured: every request is ")
                    .append("refused.</p></section>\n");
            return;
        }
        html.append("<p class=\"muted\">The clients configured in <code>auth.clients</code>, <code>auth.tokens</code> ")
                .append("and <code>auth.tokensFile</code>; also at <code>GET /api/v1/clients</code> of the operator ")
                .append("API.</p>\n<table id=\"clients\"><thead><tr><th>Client</th><th>May reach</th>")
                .append("<th>Last seen</th></tr></thead><tbody>\n");
        for (ClientStatus client : clients) {
            html.append("<tr><td>")
                    .append(PageHtml.escape(client.name()))
                    .append("</td><td>")
                    .append(PageHtml.escape(client.reach()))
                    .append("</td><td>")
                    .append(page.ago(client.lastSeen()))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }
}
