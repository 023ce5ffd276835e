package io.providermirror.server.status;

import io.providermirror.server.report.UsageStatus;
import java.util.List;

/**
 * The status page's part about the usage inventory: the items clients requested most, with when last, across
 * the fleet (the other instances as of the last flush), as {@code GET /api/v1/status} lists them. The whole inventory is in the operator API and the
 * {@code inventory} command.
 */
final class InventorySection {

    private InventorySection() {}

    static void render(StringBuilder html, List<UsageStatus> top, PageHtml page) {
        html.append("<section><h2>Most requested</h2>");
        if (top.isEmpty()) {
            html.append("<p class=\"muted\" id=\"inventory-none\">No archive was requested yet.</p></section>\n");
            return;
        }
        html.append("<p>Archives downloaded most, with when last (the whole usage inventory: ")
                .append("<code>GET /api/v1/inventory</code> or the <code>inventory</code> command, see ")
                .append("<a href=\"/docs/operations.md\">operations.md</a>).</p>\n")
                .append("<table id=\"inventory\"><thead><tr><th>Provider or module</th><th>Version</th>")
                .append("<th>Platform</th><th>Requests</th><th>Clients</th><th>Last requested</th></tr></thead>")
                .append("<tbody>\n");
        for (UsageStatus usage : top) {
            html.append("<tr><td>")
                    .append(PageHtml.escape(usage.address()))
                    .append("</td><td>")
                    .append(PageHtml.escape(usage.version()))
                    .append("</td><td>")
                    .append(
                            usage.platform().isEmpty()
                                    ? "<span class=\"muted\">module</span>"
                                    : PageHtml.escape(usage.platform()))
                    .append("</td><td>")
                    .append(usage.requests())
                    .append("</td><td>")
                    .append(usage.clients().size())
                    .append("</td><td>")
                    .append(page.ago(usage.lastRequested()))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }
}
