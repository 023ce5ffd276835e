package io.providermirror.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registry (HTTPS, with a {@link FakeOrigin}'s certificate) that answers its discovery document at once and holds
 * every other request unanswered until {@link #recover}: an origin that hangs. Made {@link #listing}, it answers
 * every provider's version list at once and hangs on what comes after (the download documents). Once recovered, it
 * answers each held request and every later one {@code 404}. Counts the requests it holds.
 */
public final class HangingRegistry implements AutoCloseable {

    private static final byte[] DISCOVERY =
            "{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"/v1/modules/\"}".getBytes(StandardCharsets.UTF_8);

    private final HttpsServer server;
    /** Every provider's version list, or null when those hang too. */
    private final byte[] versions;

    private final CountDownLatch recovered = new CountDownLatch(1);
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger mostHeld = new AtomicInteger();

    private HangingRegistry(HttpsServer server, byte[] versions) {
        this.server = server;
        this.versions = versions;
    }

    /** Starts on a free loopback port, hanging on everything but its discovery document. */
    public static HangingRegistry start(TestCertificates certificates) {
        return start(certificates, null);
    }

    /** Starts on a free loopback port, listing version 1.0.0 of every provider for {@code platforms}. */
    public static HangingRegistry listing(TestCertificates certificates, String... platforms) {
        StringBuilder list =
                new StringBuilder("{\"versions\":[{\"version\":\"1.0.0\",\"protocols\":[\"5.0\"],\"platforms\":[");
        for (int i = 0; i < platforms.length; i++) {
            String[] osArch = platforms[i].split("_", 2);
            list.append(i == 0 ? "" : ",")
                    .append("{\"os\":\"")
                    .append(osArch[0])
                    .append("\",\"arch\":\"")
                    .append(osArch[1])
                    .append("\"}");
        }
        return start(certificates, list.append("]}]}").toString().getBytes(StandardCharsets.UTF_8));
    }

    private static HangingRegistry start(TestCertificates certificates, byte[] versions) {
        try {
            HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverSslContext()));
            server.setExecutor(Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "hanging-registry");
                thread.setDaemon(true);
                return thread;
            }));
            HangingRegistry registry = new HangingRegistry(server, versions);
            server.createContext("/", registry::answer);
            server.start();
            return registry;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the hanging registry", e);
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/.well-known/terraform.json")) {
                json(exchange, DISCOVERY);
                return;
            }
            if (versions != null && path.startsWith("/v1/providers/") && path.endsWith("/versions")) {
                json(exchange, versions);
                return;
            }
            int now = held.incrementAndGet();
            mostHeld.accumulateAndGet(now, Math::max);
            try {
                recovered.await(5, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                held.decrementAndGet();
            }
            exchange.sendResponseHeaders(404, -1);
        }
    }

    private static void json(HttpExchange exchange, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    /** Its discovery document's URL. */
    public URI discoveryUrl() {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/.well-known/terraform.json");
    }

    /** The requests held unanswered now. */
    public int held() {
        return held.get();
    }

    /** The most requests it held unanswered at once. */
    public int mostHeld() {
        return mostHeld.get();
    }

    /** Answers the held requests, and every later one, {@code 404}. */
    public void recover() {
        recovered.countDown();
    }

    @Override
    public void close() {
        recover();
        server.stop(0);
    }
}
