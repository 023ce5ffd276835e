package io.providermirror.server.report;

import java.time.Instant;
import java.util.List;

/**
 * A configured client as the operator API ({@code GET /api/v1/clients}, {@code GET /api/v1/status}) and the status
 * page show it: its name and scope (an empty list of hosts or namespaces limits nothing), never its token.
 *
 * @param reach    the scope in words ({@code every host and namespace})
 * @param lastSeen its latest request on any instance sharing the store, as far as known here; null when none
 */
public record ClientStatus(String name, List<String> hosts, List<String> namespaces, String reach, Instant lastSeen) {

    public ClientStatus {
        hosts = List.copyOf(hosts);
        namespaces = List.copyOf(namespaces);
    }
}
