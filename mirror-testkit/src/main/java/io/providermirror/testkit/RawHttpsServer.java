package io.providermirror.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLServerSocket;

/**
 * An HTTPS server (with a {@link FakeOrigin}'s certificate) that writes whatever bytes a test scripts, framing
 * included: for origins that break HTTP in ways real servers refuse to, such as sending more than they announce.
 * Each connection gets one response and is then closed.
 */
public final class RawHttpsServer implements AutoCloseable {

    /** Writes the whole response, status line and headers included. */
    @FunctionalInterface
    public interface Responder {
        void respond(OutputStream out) throws IOException;
    }

    private final ServerSocket socket;
    private final ExecutorService threads;

    private RawHttpsServer(ServerSocket socket, ExecutorService threads) {
        this.socket = socket;
        this.threads = threads;
    }

    /** Starts answering every request with {@code responder}. */
    public static RawHttpsServer start(TestCertificates certificates, Responder responder) {
        try {
            SSLServerSocket socket = (SSLServerSocket) certificates
                    .serverSslContext()
                    .getServerSocketFactory()
                    .createServerSocket(0, 16, InetAddress.getLoopbackAddress());
            ExecutorService threads = Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "raw-https-server");
                thread.setDaemon(true);
                return thread;
            });
            RawHttpsServer server = new RawHttpsServer(socket, threads);
            threads.execute(() -> server.acceptLoop(responder));
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the raw HTTPS server", e);
        }
    }

    /**
     * Starts an origin that sends the headers of a large document at once and then its body one byte every 100 ms
     * (well within any read timeout), until the client hangs up, which counts down {@code hungUp}.
     */
    public static RawHttpsServer trickling(TestCertificates certificates, java.util.concurrent.CountDownLatch hungUp) {
        return start(certificates, out -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            try {
                while (true) {
                    out.write(' ');
                    out.flush();
                    // Pacing the trickle, not synchronising with it.
                    Thread.sleep(100);
                }
            } catch (IOException closed) {
                hungUp.countDown();
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private void acceptLoop(Responder responder) {
        while (!socket.isClosed()) {
            Socket connection;
            try {
                connection = socket.accept();
            } catch (IOException closed) {
                return;
            }
            threads.execute(() -> {
                try (connection) {
                    skipRequestHead(connection.getInputStream());
                    OutputStream out = connection.getOutputStream();
                    responder.respond(out);
                    out.flush();
                } catch (IOException ignored) {
                    // The client went away; that is the client's business.
                }
            });
        }
    }

    private static void skipRequestHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        int b;
        while (matched < end.length && (b = in.read()) >= 0) {
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    /** The URL of a path on this server. */
    public URI url(String path) {
        return URI.create("https://127.0.0.1:" + socket.getLocalPort() + path);
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
