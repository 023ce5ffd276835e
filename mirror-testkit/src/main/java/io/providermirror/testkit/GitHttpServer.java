package io.providermirror.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefWriter;
import org.eclipse.jgit.lib.Repository;

/**
 * Bare git repositories served over HTTPS on loopback with git's "dumb" protocol: static files, after the
 * equivalent of {@code git update-server-info}. (JGit's smart-HTTP servlet is not in the build's repository.)
 * Repositories live in one directory as {@code <name>.git} and are served at
 * {@code https://localhost:<port>/<name>.git}; the server can be stopped and started again on the same port, so
 * URLs a mirror has recorded stay valid. It records every path and {@code Authorization} header it receives.
 */
public final class GitHttpServer implements AutoCloseable {

    private final Path root;
    private final TestCertificates certificates;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private int port;
    /** Milliseconds between the small pieces of a body, when trickling; 0 sends bodies at once. */
    private volatile long trickleMillis;

    private HttpsServer server;

    private GitHttpServer(Path root, TestCertificates certificates) {
        this.root = root;
        this.certificates = certificates;
    }

    /** Starts serving the bare repositories in {@code root} (created if missing) with {@code certificates}. */
    public static GitHttpServer start(Path root, TestCertificates certificates) {
        try {
            Files.createDirectories(root);
            GitHttpServer git = new GitHttpServer(root.toRealPath(), certificates);
            git.start();
            return git;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts serving again, on the port it had before (or a free one the first time); a no-op while running. */
    public synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverSslContext()));
            server.createContext("/", this::serve);
            server.start();
            port = server.getAddress().getPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the git server on port " + port, e);
        }
    }

    /**
     * Sends every body from now on in pieces of {@value #TRICKLE_PIECE} bytes, {@code pause} apart: a server too slow
     * to wait for ({@link Duration#ZERO} sends bodies at once again).
     */
    public void trickle(java.time.Duration pause) {
        trickleMillis = pause.toMillis();
    }

    private static final int TRICKLE_PIECE = 16;

    /** Stops serving: connections are refused until {@link #start()}. */
    public synchronized void stop() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    /** Whether it serves now. */
    public synchronized boolean running() {
        return server != null;
    }

    /** A new repository {@code name} (a bare {@code <name>.git} with a work tree beside it to commit from). */
    public GitRepository createRepository(String name) {
        return GitRepository.create(
                root.resolve(name + ".git"), root.resolve(".work").resolve(name), url(name));
    }

    /** The URL of the repository {@code name}. */
    public URI url(String name) {
        return URI.create("https://localhost:" + port + "/" + name + ".git");
    }

    /** The paths requested so far, in order. */
    public List<String> paths() {
        return List.copyOf(paths);
    }

    /** The {@code Authorization} header of each request so far ({@code ""} where there was none). */
    public List<String> authorizations() {
        return List.copyOf(authorizations);
    }

    /** Writes {@code info/refs} and {@code objects/info/packs} for a bare repository's current refs and packs. */
    public static void updateServerInfo(Repository bare) throws IOException {
        // Peeled, so annotated tags get their "^{}" line as git update-server-info writes it.
        List<Ref> refs = new ArrayList<>();
        for (Ref ref : bare.getRefDatabase().getRefs()) {
            refs.add(bare.getRefDatabase().peel(ref));
        }
        new RefWriter(refs) {
            @Override
            protected void writeFile(String file, byte[] content) throws IOException {
                Path target = bare.getDirectory().toPath().resolve(file);
                Files.createDirectories(target.getParent());
                Files.write(target, content);
            }
        }.writeInfoRefs();
        Path packDirectory = bare.getDirectory().toPath().resolve("objects/pack");
        String packs = "";
        if (Files.isDirectory(packDirectory)) {
            try (Stream<Path> files = Files.list(packDirectory)) {
                packs = files.map(path -> path.getFileName().toString())
                        .filter(name -> name.endsWith(".pack"))
                        .sorted()
                        .map(name -> "P " + name + "\n")
                        .collect(Collectors.joining());
            }
        }
        Path info = bare.getDirectory().toPath().resolve("objects/info");
        Files.createDirectories(info);
        Files.writeString(info.resolve("packs"), packs + "\n", StandardCharsets.UTF_8);
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            paths.add(path);
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(authorization == null ? "" : authorization);
            Path file = root.resolve(path.substring(1)).normalize();
            // Only files inside a served <name>.git, never the work trees or anything outside the root.
            boolean inRepository = file.startsWith(root)
                    && file.getNameCount() > root.getNameCount()
                    && file.getName(root.getNameCount()).toString().endsWith(".git");
            if (!inRepository || !Files.isRegularFile(file)) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            byte[] body = Files.readAllBytes(file);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                long pause = trickleMillis;
                if (pause == 0) {
                    out.write(body);
                    return;
                }
                for (int offset = 0; offset < body.length; offset += TRICKLE_PIECE) {
                    out.write(body, offset, Math.min(TRICKLE_PIECE, body.length - offset));
                    out.flush();
                    try {
                        Thread.sleep(pause); // the slowness being simulated, not a wait for anything
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        stop();
    }
}
