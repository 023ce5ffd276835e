package io.providermirror.server.status;

import io.providermirror.server.inventory.InventoryQuery;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.inventory.UsageItem;
import java.util.List;
import java.util.Map;

/**
 * The status page's part about the usage inventory: the items clients requested most, with when last, across
 * the fleet (the other instances as of the last flush). The whole inventory is in the operator API and the
 * {@code inventory} command.
 */
final class InventorySection {

    /** How many items the page lists. */
    static final int SHOWN = 10;

    private InventorySection() {}

    static void render(StringBuilder html, UsageInventory inventory, PageHtml page) {
        List<Map.Entry<UsageItem, Usage>> top = InventoryQuery.top(inventory.recent(), SHOWN);
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
        for (Map.Entry<UsageItem, Usage> entry : top) {
            UsageItem item = entry.getKey();
            Usage usage = entry.getValue();
            html.append("<tr><td>")
                    .append(PageHtml.escape(item.address()))
                    .append("</td><td>")
                    .append(PageHtml.escape(item.version().toString()))
                    .append("</td><td>")
                    .append(item.platform().isEmpty() ? "<span class=\"muted\">module</span>" : item.platform())
                    .append("</td><td>")
                    .append(usage.requests())
                    .append("</td><td>")
                    .append(usage.clients().size())
                    .append("</td><td>")
                    .append(page.ago(usage.last()))
                    .append("</td></tr>\n");
        }
        html.append("</tbody></table></section>\n");
    }
}
