package io.providermirror.upstream;

import java.net.URI;
import java.util.Map;

/**
 * Remote service discovery: finds a hostname's {@code providers.v1} or {@code modules.v1} base URL through
 * {@code https://<hostname>/.well-known/terraform.json}, or through a configured discovery URL instead.
 */
public final class ServiceDiscovery {

    /** The path of the discovery document beneath a host. */
    public static final String WELL_KNOWN_PATH = ".well-known/terraform.json";

    /** How much of a discovery answer to the archive client {@link #askWithArchiveClient} reads before closing. */
    private static final int MAX_DROPPED_BYTES = 64 * 1024;

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
        return document(hostname).base(RegistryService.PROVIDERS);
    }

    /** Fetches the discovery document and returns the absolute {@code modules.v1} base URL. */
    public URI modulesBase(String hostname) {
        return document(hostname).base(RegistryService.MODULES);
    }

    /**
     * Asks {@code hostname} for its discovery document with the archive client, recorded as discovery: what the first
     * cold archive from that host would otherwise do first (the archive client's first TLS handshake and exchange),
     * done ahead by the warm-up after start-up, which also leaves a connection to the host open for reuse. The
     * answer is read up to {@link #MAX_DROPPED_BYTES} and dropped.
     *
     * @throws OriginException when the request fails or is not answered with 200
     */
    public void askWithArchiveClient(String hostname) {
        String what = "service discovery for " + hostname + " (archive client)";
        try (OriginHttpClient.ArchiveStream answer = http.openArchive(
                hostname,
                discoveryUrl(hostname),
                what,
                credentials.tokenFor(hostname).orElse(null),
                OriginObserver.Operation.DISCOVERY)) {
            answer.body().readNBytes(MAX_DROPPED_BYTES);
        } catch (java.io.IOException e) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": " + e.getMessage(), e);
        }
    }

    /** Fetches the discovery document of {@code hostname}, once for all of its services. */
    DiscoveryDocument document(String hostname) {
        return DiscoveryDocument.of(
                hostname,
                http.getDocument(
                        hostname,
                        discoveryUrl(hostname),
                        "service discovery for " + hostname,
                        OriginObserver.Operation.DISCOVERY,
                        credentials.tokenFor(hostname).orElse(null)));
    }

    /** Reads {@code providers.v1} from a fetched discovery document, resolved against its final URL. */
    public static URI parseProvidersBase(String hostname, OriginHttpClient.Document document) {
        return DiscoveryDocument.of(hostname, document).base(RegistryService.PROVIDERS);
    }
}
