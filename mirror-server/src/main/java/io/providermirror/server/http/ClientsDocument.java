package io.providermirror.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.access.Client;
import io.providermirror.server.access.ClientSightings;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The operator API's answer to {@code GET /api/v1/clients}: every configured client, in the order configured, with
 * its scope (an empty list of hosts or namespaces limits nothing) and when it was last seen ({@code null} when not
 * since the mirror started). Names and scopes only: a token or its hash is never part of it.
 */
final class ClientsDocument {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ClientsDocument() {}

    static byte[] json(ClientSightings sightings) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode clients = root.putArray("clients");
        for (Map.Entry<Client, Optional<Instant>> entry : sightings.all().entrySet()) {
            ObjectNode client = clients.addObject().put("name", entry.getKey().name());
            ObjectNode scope = client.putObject("scope");
            entry.getKey().scope().hosts().forEach(scope.putArray("hosts")::add);
            entry.getKey().scope().namespaces().forEach(scope.putArray("namespaces")::add);
            client.put("lastSeen", entry.getValue().map(Instant::toString).orElse(null));
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the clients as JSON", e);
        }
    }
}
