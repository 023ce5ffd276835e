package io.providermirror.testkit;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * An HTTPS server (with a {@link FakeOrigin}'s certificate) that announces a body, sends only its first
 * {@code sentBytes}, and then goes silent until closed: an origin that stalls mid-transfer, until healed.
 */
public final class StallingServer implements AutoCloseable {

    private final HttpsServer server;
    private final CountDownLatch release = new CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicBoolean healed = new java.util.concurrent.atomic.AtomicBoolean();

    private StallingServer(HttpsServer server) {
        this.server = server;
    }

    /** Serves {@code body} at every path, stalling after {@code sentBytes}. */
    public static StallingServer start(TestCertificates certificates, byte[] body, int sentBytes) {
        return start(certificates, body, sentBytes, false);
    }

    /** Serves {@code body} at every path, closing the connection after {@code sentBytes}: a truncated transfer. */
    public static StallingServer truncating(TestCertificates certificates, byte[] body, int sentBytes) {
        return start(certificates, body, sentBytes, true);
    }

    private static StallingServer start(TestCertificates certificates, byte[] body, int sentBytes, boolean truncate) {
        try {
            SSLContext tls = certificates.serverSslContext();
            HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            server.setHttpsConfigurator(new HttpsConfigurator(tls));
            server.setExecutor(Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "stalling-server");
                thread.setDaemon(true);
                return thread;
            }));
            StallingServer stalling = new StallingServer(server);
            server.createContext("/", exchange -> {
                exchange.getResponseHeaders().set("Content-Type", "application/zip");
                exchange.sendResponseHeaders(200, body.length);
                OutputStream out = exchange.getResponseBody();
                if (stalling.healed.get()) {
                    out.write(body);
                    exchange.close();
                    return;
                }
                out.write(body, 0, sentBytes);
                out.flush();
                if (truncate) {
                    // Closing before the announced length is sent ends the connection mid-body.
                    exchange.close();
                    return;
                }
                try {
                    stalling.release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.close();
            });
            server.start();
            return stalling;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the stalling server", e);
        }
    }

    /** From now on, requests get the whole body. */
    public void heal() {
        healed.set(true);
    }

    /** The URL of a file on this server. */
    public URI url(String path) {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
    }
}
