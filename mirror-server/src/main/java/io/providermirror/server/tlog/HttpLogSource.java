package io.providermirror.server.tlog;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * A log read over HTTP from its prefix (e.g. {@code https://mirror.example/log/}), as any C2SP client reads it:
 * {@code <prefix>checkpoint} and {@code <prefix>tile/...}; a 404 is an absent resource.
 */
public final class HttpLogSource implements LogSource {

    /** The most a resource may hold: a full tile is 8 KiB, a full bundle at most 256 entries of 64 KiB. */
    private static final long MAX_BYTES = 256L * 65_537;

    private final HttpClient client;
    private final URI prefix;
    private final String authorization;

    /**
     * @param authorization the {@code Authorization} header's value for a mirror with access control, or null
     */
    public HttpLogSource(HttpClient client, URI prefix, String authorization) {
        String text = prefix.toString();
        this.prefix = URI.create(text.endsWith("/") ? text : text + "/");
        this.client = client;
        this.authorization = authorization;
    }

    @Override
    public Optional<byte[]> checkpoint() throws IOException {
        return get("checkpoint");
    }

    @Override
    public Optional<byte[]> tile(TileName name) throws IOException {
        return get(name.path());
    }

    private Optional<byte[]> get(String path) throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(prefix.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<byte[]> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + prefix.resolve(path), e);
        }
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() != 200) {
            throw new IOException(prefix.resolve(path) + " answered " + response.statusCode());
        }
        if (response.body().length > MAX_BYTES) {
            throw new IOException(prefix.resolve(path) + " is larger than any tile or bundle");
        }
        return Optional.of(response.body());
    }
}
