package io.providermirror.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.tls.GeneratedCertificates;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The operator API of the mirror running on a cache directory, as {@code import} and {@code modules accept} use it
 * when that mirror holds the directory: at {@code --mirror-url}, else the first {@code server.publicUrl}, else
 * {@code https://localhost:<server.port>}; with the operator token from {@code --operator-token-file} or
 * {@code PROVIDER_MIRROR_OPERATOR_TOKEN}; trusting the configured server certificate or the CA the mirror
 * generated ({@code server.generatedTls.directory}).
 */
final class OperatorClient {

    /** The environment variable that holds the operator token (never a configuration key: it is no hash). */
    static final String TOKEN_VARIABLE = ConfigLoader.ENV_PREFIX + "OPERATOR_TOKEN";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The API cannot be used from here; the message says what to do. */
    static final class UnusableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnusableException(String message) {
            super(message);
        }
    }

    /** An answer of the API: its status, and its JSON ({@code {"errors":[...]}} when it refused). */
    record Answer(int status, JsonNode body) {
        boolean ok() {
            return status == 200;
        }

        /** The first error message of a refusal, or the status when the body says none. */
        String error() {
            JsonNode errors = body == null ? null : body.get("errors");
            return errors != null && errors.isArray() && !errors.isEmpty()
                    ? errors.get(0).asText()
                    : "the mirror answered HTTP " + status;
        }
    }

    private final URI base;
    private final String token;
    private final HttpClient client;

    private OperatorClient(URI base, String token, HttpClient client) {
        this.base = base;
        this.token = token;
        this.client = client;
    }

    /**
     * The API of the mirror {@code config} describes.
     *
     * @param mirrorUrl  {@code --mirror-url}, or null
     * @param tokenFile  {@code --operator-token-file}, or null
     * @param command    the command's name, for messages
     */
    static OperatorClient of(
            MirrorConfig config, URI mirrorUrl, Path tokenFile, Map<String, String> environment, String command)
            throws UnusableException {
        String token = token(tokenFile, environment, command);
        URI base = base(config, mirrorUrl);
        HttpClient.Builder client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(30));
        if (base.getScheme().equals("https")) {
            Path trust = config.server().tls() != null
                    ? config.server().tls().certificate()
                    : new GeneratedCertificates(
                                    config.server()
                                            .generatedTls()
                                            .directoryBeside(config.cache()
                                                    .directory()
                                                    .toAbsolutePath()
                                                    .normalize()),
                                    List.of(),
                                    Clock.systemUTC())
                            .caFile();
            try {
                client.sslContext(TrustedCertificates.sslContext(Files.isRegularFile(trust) ? trust : null));
            } catch (IOException e) {
                throw new UnusableException("cannot read the mirror's certificate " + trust + ": " + e.getMessage());
            }
        }
        return new OperatorClient(base, token, client.build());
    }

    private static String token(Path tokenFile, Map<String, String> environment, String command)
            throws UnusableException {
        if (tokenFile != null) {
            try {
                String token =
                        Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
                if (token.isEmpty()) {
                    throw new UnusableException("--operator-token-file " + tokenFile + " is empty");
                }
                return token;
            } catch (IOException e) {
                throw new UnusableException("cannot read --operator-token-file " + tokenFile + ": " + e.getMessage());
            }
        }
        String token = environment.getOrDefault(TOKEN_VARIABLE, "").strip();
        if (token.isEmpty()) {
            throw new UnusableException("to " + command + " on the running mirror through its operator API, give an "
                    + "operator token: --operator-token-file FILE, or the environment variable " + TOKEN_VARIABLE
                    + " (a token whose hash, as `hash-token` prints it, is in the mirror's operator.tokens); "
                    + "or stop the mirror first");
        }
        return token;
    }

    private static URI base(MirrorConfig config, URI mirrorUrl) {
        URI base;
        if (mirrorUrl != null) {
            base = mirrorUrl;
        } else if (!config.server().publicUrl().isEmpty()) {
            base = config.server().publicUrl().get(0);
        } else {
            base = URI.create((config.server().plainHttp() ? "http" : "https") + "://localhost:"
                    + config.server().port() + "/");
        }
        String text = base.toString();
        return URI.create(text.endsWith("/") ? text : text + "/");
    }

    /** The mirror's URL, for messages. */
    URI base() {
        return base;
    }

    /** POSTs {@code body} to {@code path} below {@code /api/v1/}. */
    Answer post(String path, HttpRequest.BodyPublisher body) throws IOException, InterruptedException {
        return send(
                path,
                builder -> builder.header("Content-Type", "application/octet-stream")
                        .POST(body));
    }

    /** DELETEs {@code path} (with its query) below {@code /api/v1/}. */
    Answer delete(String path) throws IOException, InterruptedException {
        return send(path, HttpRequest.Builder::DELETE);
    }

    private Answer send(String path, java.util.function.UnaryOperator<HttpRequest.Builder> method)
            throws IOException, InterruptedException {
        URI uri = base.resolve("api/v1/" + path);
        HttpRequest request = method.apply(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token))
                .build();
        HttpResponse<byte[]> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            String why = e instanceof java.net.ConnectException
                    ? "nothing answers there (connection refused); give --mirror-url with the mirror's URL"
                    : e instanceof javax.net.ssl.SSLException
                            ? "the mirror's certificate is not trusted here, or does not name this host; give "
                                    + "--mirror-url with a name its certificate covers"
                            : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new IOException("cannot reach the operator API at " + uri + ": " + why, e);
        }
        JsonNode json;
        try {
            json = JSON.readTree(response.body());
        } catch (IOException e) {
            json = null;
        }
        return new Answer(response.statusCode(), json);
    }
}
