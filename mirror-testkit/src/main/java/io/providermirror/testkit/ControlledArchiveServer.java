package io.providermirror.testkit;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An origin's file server on loopback that holds downloads open until the test says: it announces each
 * archive's full length, sends the first byte, and sends the rest only after {@link #release()}.
 */
public final class ControlledArchiveServer implements AutoCloseable {

    private final HttpsServer server;
    private final ExecutorService threads;
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger requests = new AtomicInteger();

    private ControlledArchiveServer(HttpsServer server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    /** Starts it on 127.0.0.1 with {@code certificates}' server certificate. */
    public static ControlledArchiveServer start(TestCertificates certificates) throws IOException {
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverSslContext()));
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "controlled-origin");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(threads);
        ControlledArchiveServer controlled = new ControlledArchiveServer(server, threads);
        server.createContext("/", exchange -> {
            controlled.requests.incrementAndGet();
            byte[] body = controlled.files.get(exchange.getRequestURI().getPath());
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "application/zip");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                int sent = 0;
                while (sent < body.length && controlled.released.getCount() > 0) {
                    out.write(body[sent++]);
                    out.flush();
                    controlled.released.await(60, TimeUnit.SECONDS);
                }
                out.write(body, sent, body.length - sent);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException closedByTheMirror) {
                // The mirror gave up on this transfer.
            }
            exchange.close();
        });
        server.start();
        return controlled;
    }

    /** The port it listens on, to configure as the origin's download host. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Serves {@code body} at {@code path} and returns its URL. */
    public URI serve(String path, byte[] body) {
        files.put(path, body);
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** From now on every body, those held included, goes out whole. */
    public void release() {
        released.countDown();
    }

    /** Requests received so far. */
    public int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        threads.shutdownNow();
    }
}
