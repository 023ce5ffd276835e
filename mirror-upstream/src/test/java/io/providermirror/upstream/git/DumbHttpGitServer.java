package io.providermirror.upstream.git;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.providermirror.testkit.TestCertificates;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.RefWriter;
import org.eclipse.jgit.lib.Repository;

/**
 * A bare repository served over HTTPS on loopback with git's "dumb" protocol: static files, after the
 * equivalent of {@code git update-server-info} ({@code info/refs}, {@code objects/info/packs}).
 */
final class DumbHttpGitServer implements AutoCloseable {

    private final HttpsServer server;
    private final Path bareRepository;
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<String> paths = new CopyOnWriteArrayList<>();

    DumbHttpGitServer(Path bareRepository, TestCertificates certificates) throws IOException {
        this.bareRepository = bareRepository.toRealPath();
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverSslContext()));
        server.createContext("/repo.git/", this::serve);
        server.start();
    }

    URI repositoryUrl() {
        return URI.create("https://localhost:" + server.getAddress().getPort() + "/repo.git");
    }

    /** Writes info/refs and objects/info/packs for the repository's current refs and packs. */
    static void updateServerInfo(Repository bare) throws IOException {
        new RefWriter(bare.getRefDatabase().getRefs()) {
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
            paths.add(exchange.getRequestURI().getPath());
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(authorization == null ? "" : authorization);
            String relative = exchange.getRequestURI().getPath().substring("/repo.git/".length());
            Path file = bareRepository.resolve(relative).normalize();
            if (!file.startsWith(bareRepository) || !Files.isRegularFile(file)) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            byte[] body = Files.readAllBytes(file);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
