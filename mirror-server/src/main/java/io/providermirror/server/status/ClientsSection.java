package io.providermirror.server.status;

import io.providermirror.server.access.Client;
import io.providermirror.server.access.ClientSightings;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The status page's section on the named clients ({@code auth.clients}, and plain tokens named after their hash):
 * each name, what it may reach, and when it was last seen since start-up. Shown while access control is on.
 */
final class ClientsSection {

    private ClientsSection() {}

    static void render(StringBuilder html, ClientSightings sightings, PageHtml page) {
        Map<Client, Optional<Instant>> clients = sightings.all();
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
        for (Map.Entry<Client, Optional<Instant>> client : clients.entrySet()) {
            html.append("<tr><td>")
                    .append(PageHtml.escape(client.getKey().name()))
                    .append("</td><td>")
                    .append(PageHtml.escape(client.getKey().scope().describe()))
                    .append("</td><td>")
                    .append(page.ago(client.getValue().orElse(null)))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }
}
