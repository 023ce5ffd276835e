package io.providermirror.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.net.ssl.SSLServerSocket;

/**
 * An HTTPS origin (with a {@link TestCertificates} server certificate) that keeps each connection open for as many
 * requests as the client sends, and counts the TCP connections it accepted and those still open: what a test of
 * connection reuse observes. A path ending in {@code ?close} is answered with {@code Connection: close}, and the
 * connection then left open until the client closes it (whether the client honours the header is then what
 * decides).
 */
public final class KeepAliveHttpsServer implements AutoCloseable {

    private final ServerSocket socket;
    private final ExecutorService threads;
    private final Function<String, byte[]> bodies;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();

    private KeepAliveHttpsServer(ServerSocket socket, ExecutorService threads, Function<String, byte[]> bodies) {
        this.socket = socket;
        this.threads = threads;
        this.bodies = bodies;
    }

    /** Starts answering every GET with 200 and {@code bodies} of its path (query included). */
    public static KeepAliveHttpsServer start(TestCertificates certificates, Function<String, byte[]> bodies) {
        try {
            SSLServerSocket socket = (SSLServerSocket) certificates
                    .serverSslContext()
                    .getServerSocketFactory()
                    .createServerSocket(0, 16, InetAddress.getLoopbackAddress());
            ExecutorService threads = Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "keep-alive-https-server");
                thread.setDaemon(true);
                return thread;
            });
            KeepAliveHttpsServer server = new KeepAliveHttpsServer(socket, threads, bodies);
            threads.execute(server::acceptLoop);
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the keep-alive HTTPS server", e);
        }
    }

    /** TCP connections accepted so far. */
    public int connectionsAccepted() {
        return accepted.get();
    }

    /** Connections the client has not closed yet (nor this server, after {@code ?close}). */
    public int connectionsOpen() {
        return open.get();
    }

    /** Requests answered so far, on all connections. */
    public int requests() {
        return requests.get();
    }

    /** The URL of a path on this server, by its address. */
    public URI url(String path) {
        return URI.create("https://127.0.0.1:" + port() + path);
    }

    public int port() {
        return socket.getLocalPort();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            Socket connection;
            try {
                connection = socket.accept();
            } catch (IOException closed) {
                return;
            }
            accepted.incrementAndGet();
            open.incrementAndGet();
            threads.execute(() -> serve(connection));
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            InputStream in = new BufferedInputStream(connection.getInputStream());
            OutputStream out = connection.getOutputStream();
            String path;
            while ((path = requestPath(in)) != null) {
                requests.incrementAndGet();
                byte[] body = bodies.apply(path);
                boolean close = path.endsWith("?close");
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n"
                                + (close ? "Connection: close\r\n" : "") + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                if (close) {
                    while (in.read() >= 0) {
                        // Nothing more is answered; the client is to close.
                    }
                    return;
                }
            }
        } catch (IOException ignored) {
            // The client went away; that is the client's business.
        } finally {
            open.decrementAndGet();
        }
    }

    /** Reads a request head and returns its path, or null when the client closed the connection. */
    private static String requestPath(InputStream in) throws IOException {
        String requestLine = null;
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                String text = line.toString(StandardCharsets.US_ASCII).strip();
                line.reset();
                if (text.isEmpty()) {
                    return requestLine == null ? null : requestLine.split(" ")[1];
                }
                if (requestLine == null) {
                    requestLine = text;
                }
            } else {
                line.write(b);
            }
        }
        return null;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        threads.shutdownNow();
    }
}
