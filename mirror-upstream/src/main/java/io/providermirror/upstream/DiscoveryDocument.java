package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;

/**
 * A host's discovery document as fetched: checked to be a JSON object, read as the CLI reads it, its services
 * resolved against the URL it was finally fetched from when asked for.
 */
record DiscoveryDocument(String hostname, URI finalUri, JsonNode root) {

    /** Checks {@code document} (status, media type, a JSON object) and keeps it for its services to be read. */
    static DiscoveryDocument of(String hostname, OriginHttpClient.Document document) {
        String what = "service discovery for " + hostname + " (" + document.finalUri() + ")";
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(
                    document.finalUri(), document.status(), "service discovery for " + hostname);
        }
        if (!document.isJson()) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + " answered with media type '" + document.contentType() + "', not application/json");
        }
        JsonNode root = OriginJson.read(document.body(), what);
        if (!root.isObject()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " is not a JSON object");
        }
        return new DiscoveryDocument(hostname, document.finalUri(), root);
    }

    /** The absolute base URL of {@code service}; {@code NOT_FOUND} when the host does not offer it. */
    URI base(RegistryService service) {
        String what = "service discovery for " + hostname + " (" + finalUri + ")";
        // The CLI reads the document into a map, whose keys it matches exactly.
        JsonNode base = root.get(service.id());
        if (base == null) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    hostname + " offers no " + service.description() + " (its discovery document has no " + service.id()
                            + ")");
        }
        if (!base.isTextual()) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE, what + ": " + service.id() + " is not a string");
        }
        try {
            String value = base.asText();
            URI resolved = finalUri.resolve(value.endsWith("/") ? value : value + "/");
            if (resolved.getScheme() == null || resolved.getHost() == null) {
                throw new IllegalArgumentException("not an absolute URL");
            }
            return resolved;
        } catch (IllegalArgumentException e) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": " + service.id() + " '" + base.asText() + "' is not a valid URL",
                    e);
        }
    }
}
