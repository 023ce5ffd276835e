package io.providermirror.server.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.providermirror.server.tls.ServerIdentity;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A registry on 127.0.0.1 that publishes the {@link SampleRelease} and nothing else, over HTTPS with the identity it
 * is given, for the {@link StartupRehearsal}'s mirror: its discovery document, the provider's version list, the
 * download document (its URLs pointing here) and the release's files. Every other path is a 404. It lives as long as
 * the rehearsal, one thread answering.
 */
final class SampleOrigin implements AutoCloseable {

    private static final String PROVIDER =
            "/v1/providers/" + SampleRelease.ADDRESS.namespace() + "/" + SampleRelease.ADDRESS.type() + "/";

    private final HttpsServer server;
    private final ExecutorService thread;
    private final Map<String, byte[]> answers;

    private SampleOrigin(HttpsServer server, ExecutorService thread) {
        this.server = server;
        this.thread = thread;
        String platform = SampleRelease.PLATFORM.os() + "/" + SampleRelease.PLATFORM.arch();
        String versions = "{\"versions\":[{\"version\":\"" + SampleRelease.VERSION + "\",\"protocols\":[\"5.0\"],"
                + "\"platforms\":[{\"os\":\"" + SampleRelease.PLATFORM.os() + "\",\"arch\":\""
                + SampleRelease.PLATFORM.arch() + "\"}]}]}";
        this.answers = Map.of(
                "/.well-known/terraform.json",
                utf8("{\"providers.v1\":\"" + "/v1/providers/" + "\"}"),
                PROVIDER + "versions",
                utf8(versions),
                PROVIDER + SampleRelease.VERSION + "/download/" + platform,
                SampleRelease.downloadDocument(base()),
                "/files/SHA256SUMS",
                SampleRelease.file("SHA256SUMS"),
                "/files/SHA256SUMS.sig",
                SampleRelease.file("SHA256SUMS.sig"),
                "/files/" + SampleRelease.ARCHIVE,
                SampleRelease.archive());
    }

    /** Starts the origin on a free port of 127.0.0.1, presenting {@code identity}. */
    static SampleOrigin start(ServerIdentity identity, ThreadGroup group) throws IOException {
        HttpsConfigurator tls = new HttpsConfigurator(sslContext(identity));
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
            Thread answering = new Thread(group, task, "sample-origin");
            answering.setDaemon(true);
            return answering;
        });
        try {
            server.setHttpsConfigurator(tls);
            server.setExecutor(thread);
            SampleOrigin origin = new SampleOrigin(server, thread);
            server.createContext("/", origin::answer);
            server.start();
            return origin;
        } catch (RuntimeException e) {
            server.stop(0);
            thread.shutdownNow();
            throw e;
        }
    }

    /** Where the origin answers: {@code https://127.0.0.1:<port>/}. */
    URI base() {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    /** Its discovery document's URL. */
    URI discoveryUrl() {
        return base().resolve(".well-known/terraform.json");
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = "GET".equals(exchange.getRequestMethod())
                    ? answers.get(exchange.getRequestURI().getRawPath())
                    : null;
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            exchange.getResponseHeaders()
                    .set(
                            "Content-Type",
                            exchange.getRequestURI().getRawPath().startsWith("/files/")
                                    ? "application/octet-stream"
                                    : "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static SSLContext sslContext(ServerIdentity identity) throws IOException {
        try {
            // In memory only, as the listener's (MirrorServer): JKS, which PKCS#12's 10,000 rounds of PBKDF2 each way
            // would only slow down.
            char[] password = "in-memory".toCharArray();
            KeyStore keys = KeyStore.getInstance("JKS");
            keys.load(null, null);
            keys.setKeyEntry(
                    "origin", identity.privateKey(), password, identity.chain().toArray(new Certificate[0]));
            KeyManagerFactory managers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            managers.init(keys, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(managers.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("the sample origin's TLS cannot be set up: " + e.getMessage(), e);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
    }
}
