package io.providermirror.server.warm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.PackageHashes;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;

/**
 * Warms a running mirror through its URL, as a CLI would: the mirror fetches, verifies and caches; warm asks.
 * An archive the mirror says it has ({@code X-Cache: HIT} on a {@code HEAD}) is not downloaded again, so a
 * warm that was interrupted resumes where it stopped. Downloaded bytes are checked against the version
 * document's {@code zh:} hash.
 */
public final class MirrorWarmTarget implements WarmTarget {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A platform's archive as a version document gives it. */
    private record Archive(URI url, String sha256) {}

    private final URI base;
    private final HttpClient client;
    private final String token;
    private final Map<String, Map<Platform, Archive>> documents = new ConcurrentHashMap<>();

    /** @param base the mirror's base URL, e.g. {@code https://mirror.corp/providers/} */
    public MirrorWarmTarget(URI base, SSLContext trust, String token) {
        this.base = URI.create(base.toString().endsWith("/") ? base.toString() : base + "/");
        this.client = HttpClient.newBuilder()
                .sslContext(trust)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        this.token = token;
    }

    private URI providerUrl(ProviderAddress address, String file) {
        return base.resolve(address.hostname() + "/" + address.namespace() + "/" + address.type() + "/" + file);
    }

    private HttpRequest.Builder request(URI url) {
        HttpRequest.Builder builder =
                HttpRequest.newBuilder(url).timeout(Duration.ofMinutes(2)).header("User-Agent", "provider-mirror-warm");
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    /** Sends {@code request}; a certificate the JDK does not trust is explained with what to do about it. */
    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        try {
            return client.send(request, handler);
        } catch (javax.net.ssl.SSLHandshakeException e) {
            throw new IOException(
                    "cannot verify the certificate of " + base + " (" + e.getMessage() + "): give the CA "
                            + "that signed it with --ca FILE (a mirror with a generated certificate keeps it in "
                            + "ca.pem in server.generatedTls.directory, by default <cache.directory>-tls)",
                    e);
        }
    }

    private JsonNode json(URI url) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = send(request(url).build(), HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IOException(url + " answered " + response.statusCode() + mirrorsWords(response.body()));
        }
        return JSON.readTree(response.body());
    }

    /** The mirror's own error message, when its answer carries one. */
    private static String mirrorsWords(byte[] body) {
        try {
            JsonNode errors = JSON.readTree(body).get("errors");
            return errors != null && errors.size() > 0 ? ": " + errors.get(0).asText() : "";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    @Override
    public List<ProviderVersion> versions(ProviderAddress address) throws Exception {
        return MirrorProtocolDocuments.versions(json(providerUrl(address, "index.json")));
    }

    @Override
    public Set<Platform> platforms(ProviderAddress address, ProviderVersion version) throws Exception {
        return new TreeSet<>(archives(address, version).keySet());
    }

    private Map<Platform, Archive> archives(ProviderAddress address, ProviderVersion version) throws Exception {
        String key = address + " " + version;
        Map<Platform, Archive> known = documents.get(key);
        if (known != null) {
            return known;
        }
        URI url = providerUrl(address, version + ".json");
        Map<Platform, Archive> archives = new ConcurrentHashMap<>();
        for (Map.Entry<String, JsonNode> entry : json(url).path("archives").properties()) {
            String sha256 = null;
            for (JsonNode hash : entry.getValue().path("hashes")) {
                if (hash.asText().startsWith("zh:")) {
                    sha256 = hash.asText().substring(3);
                }
            }
            archives.put(
                    Platform.parse(entry.getKey()),
                    new Archive(url.resolve(entry.getValue().path("url").asText()), sha256));
        }
        documents.put(key, archives);
        return archives;
    }

    @Override
    public boolean warm(ProviderAddress address, ProviderVersion version, Platform platform, Progress progress)
            throws Exception {
        Archive archive = Optional.ofNullable(archives(address, version).get(platform))
                .orElseThrow(() -> new IOException(address + " " + version + " is not available for " + platform));
        HttpResponse<Void> head = send(
                request(archive.url())
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (head.statusCode() == 200
                && head.headers()
                        .firstValue("x-cache")
                        .filter("HIT"::equalsIgnoreCase)
                        .isPresent()) {
            return true;
        }
        HttpResponse<InputStream> response =
                send(request(archive.url()).build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw new IOException(archive.url().getPath() + " answered " + response.statusCode()
                        + mirrorsWords(body.readNBytes(64 * 1024)));
            }
            long announced =
                    response.headers().firstValueAsLong("content-length").orElse(-1);
            progress.started(announced);
            MessageDigest digest = PackageHashes.sha256();
            byte[] buffer = new byte[64 * 1024];
            long total = 0;
            int n;
            try {
                while ((n = body.read(buffer)) >= 0) {
                    digest.update(buffer, 0, n);
                    total += n;
                    progress.advanced(total);
                }
            } catch (IOException cut) {
                throw cutOff(address, version, platform, total, announced, cut);
            }
            if (announced >= 0 && total < announced) {
                throw cutOff(address, version, platform, total, announced, null);
            }
            String actual = HexFormat.of().formatHex(digest.digest());
            if (archive.sha256() != null && !archive.sha256().equals(actual)) {
                throw new IOException("the archive arrived with sha256 " + actual + " but its version document says "
                        + archive.sha256());
            }
        }
        return false;
    }

    @Override
    public List<ProviderVersion> moduleVersions(ModuleAddress address) throws Exception {
        List<ProviderVersion> versions = new java.util.ArrayList<>();
        for (JsonNode entry :
                json(moduleUrl(address, "versions")).path("modules").path(0).path("versions")) {
            ProviderVersion.parse(entry.path("version").asText()).ifPresent(versions::add);
        }
        return versions;
    }

    @Override
    public boolean warmModule(ModuleAddress address, ProviderVersion version) throws Exception {
        HttpResponse<byte[]> download = send(
                request(moduleUrl(address, version + "/download")).build(), HttpResponse.BodyHandlers.ofByteArray());
        String location = download.headers().firstValue("x-terraform-get").orElse(null);
        if (download.statusCode() != 204 || location == null) {
            throw new IOException("the download of module " + address + " " + version + " answered "
                    + download.statusCode() + mirrorsWords(download.body()));
        }
        URI archive = mirrorArchive(location);
        if (!archive.getRawAuthority().equals(base.getRawAuthority())) {
            throw new IOException("its source is passed through to clients (modules.passthroughUnsupported), not "
                    + "cached by the mirror");
        }
        boolean pinned = download.headers()
                .firstValue("x-cache")
                .filter("HIT"::equalsIgnoreCase)
                .isPresent();
        if (pinned) {
            // Fetched before: unless its archive was evicted since, the HEAD finds it without a fetch.
            HttpResponse<Void> head = send(
                    request(archive)
                            .method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (head.statusCode() == 200) {
                return true;
            }
        }
        HttpResponse<InputStream> response = send(request(archive).build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw new IOException("the archive of module " + address + " " + version + " answered "
                        + response.statusCode() + mirrorsWords(body.readNBytes(64 * 1024)));
            }
            body.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return false;
    }

    private URI moduleUrl(ModuleAddress address, String rest) {
        return base.resolve("/registry/" + address.hostname() + "/modules.v1/" + address.registryPath() + "/" + rest);
    }

    /** The archive a download answer names, as go-getter fetches it: no {@code //subdirectory}, no {@code archive=}. */
    static URI mirrorArchive(String location) {
        String[] parts = location.split("\\?", 2);
        int subdirectory = parts[0].indexOf("//", parts[0].indexOf("://") + 3);
        String path = subdirectory < 0 ? parts[0] : parts[0].substring(0, subdirectory);
        String query = parts.length < 2
                ? ""
                : parts[1].replaceFirst("(^|&)archive=[^&]*", "").replaceFirst("^&", "");
        return URI.create(query.isEmpty() ? path : path + "?" + query);
    }

    /**
     * A transfer the mirror ended early. The mirror streams an archive while it fetches it and ends the transfer
     * when the archive fails its checks (or its origin fails), so that nothing unverified is delivered whole.
     */
    private static IOException cutOff(
            ProviderAddress address,
            ProviderVersion version,
            Platform platform,
            long received,
            long announced,
            IOException cause) {
        return new IOException(
                "the mirror ended the transfer after " + received + (announced >= 0 ? " of " + announced : "")
                        + " bytes: it refused the archive while fetching it, because it failed verification (its hash or size "
                        + "does not match the signed SHA256SUMS) or its origin failed; the mirror's log says which (\"the archive "
                        + "of " + address + " " + version + " " + platform + "\")",
                cause);
    }

    @Override
    public void close() {
        // The HTTP client has nothing to close on JDK 17.
    }
}
