package io.providermirror.testkit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A real forward proxy (Debian's tinyproxy) on loopback with basic authentication, and its log. */
public final class Tinyproxy implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private Tinyproxy(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts tinyproxy with its files in {@code directory}, asking for basic authentication as {@code user} unless
     * that is null, and waits until it listens; skips the test when tinyproxy is not installed.
     */
    public static Tinyproxy start(Path directory, String user, String password) throws Exception {
        Path binary = ExternalTools.locateOrSkip("tinyproxy", "tinyproxy");
        Files.createDirectories(directory);
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path log = directory.resolve("tinyproxy.log");
        Path config = Files.writeString(directory.resolve("tinyproxy.conf"), """
                Port %d
                Listen 127.0.0.1
                Timeout 60
                LogFile "%s"
                LogLevel Info
                MaxClients 100
                Allow 127.0.0.1
                %s
                DisableViaHeader Yes
                """.formatted(
                        port, log, user == null ? "" : "BasicAuth " + user + " " + password));
        Process process = new ProcessBuilder(binary.toString(), "-d", "-c", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("tinyproxy.out").toFile())
                .start();
        int listening = port;
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), listening)) {
                return socket.isConnected();
            }
        });
        return new Tinyproxy(process, port, log);
    }

    /** The port it listens on at 127.0.0.1. */
    public int port() {
        return port;
    }

    /** How many tunnels the proxy opened to {@code authority} ({@code host:port}). */
    public long tunnelsTo(String authority) throws IOException {
        return Files.readAllLines(log).stream()
                .filter(line -> line.contains("CONNECT " + authority + " "))
                .count();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            // close() must not throw InterruptedException (try-with-resources); the flag carries it on.
            Thread.currentThread().interrupt();
        }
    }
}
