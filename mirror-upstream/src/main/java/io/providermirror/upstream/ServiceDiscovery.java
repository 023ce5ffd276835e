package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.Map;

/**
 * Remote service discovery: finds a hostname's {@code providers.v1} or {@code modules.v1} base URL through
 * {@code https://<hostname>/.well-known/terraform.json}, or through a configured discovery URL instead.
 */
public final class ServiceDiscovery {

    /** The path of the discovery document beneath a host. */
    public static final String WELL_KNOWN_PATH = ".well-known/terraform.json";

    private final OriginHttpClient http;
    private final Map<String, URI> discoveryOverrides;
    private final OriginCredentials credentials;

    /**
     * @param discoveryOverrides per hostname, a base URL whose {@code .well-known/terraform.json} is used
     *                           instead of the hostname's own (or the full URL of a discovery document)
     */
    public ServiceDiscovery(OriginHttpClient http, Map<String, URI> discoveryOverrides) {
        this(http, discoveryOverrides, OriginCredentials.NONE);
    }

    /** Discovery that sends each host's token with its discovery request. */
    public ServiceDiscovery(OriginHttpClient http, Map<String, URI> discoveryOverrides, OriginCredentials credentials) {
        this.http = http;
        this.discoveryOverrides = Map.copyOf(discoveryOverrides);
        this.credentials = credentials;
    }

    /** The URL of the discovery document for {@code hostname}. */
    public URI discoveryUrl(String hostname) {
        URI override = discoveryOverrides.get(hostname);
        if (override == null) {
            return URI.create("https://" + hostname + "/" + WELL_KNOWN_PATH);
        }
        if (override.getPath() != null && override.getPath().endsWith(".json")) {
            return override;
        }
        String base = override.toString().endsWith("/") ? override.toString() : override + "/";
        return URI.create(base).resolve(WELL_KNOWN_PATH);
    }

    /** Fetches the discovery document and returns the absolute {@code providers.v1} base URL. */
    public URI providersBase(String hostname) {
        return parseProvidersBase(hostname, fetch(hostname));
    }

    /** Fetches the discovery document and returns the absolute {@code modules.v1} base URL. */
    public URI modulesBase(String hostname) {
        return parseModulesBase(hostname, fetch(hostname));
    }

    private OriginHttpClient.Document fetch(String hostname) {
        return http.getDocument(
                hostname,
                discoveryUrl(hostname),
                "service discovery for " + hostname,
                OriginObserver.Operation.DISCOVERY,
                credentials.tokenFor(hostname).orElse(null));
    }

    /** Reads {@code providers.v1} from a fetched discovery document, resolved against its final URL. */
    public static URI parseProvidersBase(String hostname, OriginHttpClient.Document document) {
        return parseServiceBase(hostname, document, "providers.v1", "provider registry");
    }

    /** Reads {@code modules.v1} from a fetched discovery document, resolved against its final URL. */
    public static URI parseModulesBase(String hostname, OriginHttpClient.Document document) {
        return parseServiceBase(hostname, document, "modules.v1", "module registry");
    }

    private static URI parseServiceBase(
            String hostname, OriginHttpClient.Document document, String service, String offers) {
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
        // The CLI reads the document into a map, whose keys it matches exactly.
        JsonNode base = root.get(service);
        if (base == null) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    hostname + " offers no " + offers + " (its discovery document has no " + service + ")");
        }
        if (!base.isTextual()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + ": " + service + " is not a string");
        }
        try {
            String value = base.asText();
            URI resolved = document.finalUri().resolve(value.endsWith("/") ? value : value + "/");
            if (resolved.getScheme() == null || resolved.getHost() == null) {
                throw new IllegalArgumentException("not an absolute URL");
            }
            return resolved;
        } catch (IllegalArgumentException e) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": " + service + " '" + base.asText() + "' is not a valid URL",
                    e);
        }
    }
}
