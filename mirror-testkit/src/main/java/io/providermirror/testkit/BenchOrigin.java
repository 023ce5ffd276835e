package io.providermirror.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A signed origin registry as a process, for benchmarks and soak runs, that publishes <em>every</em> provider
 * {@code example.test/acme/<type>} (version 1.0.0, linux_amd64) on demand: a provider's archive is made and
 * signed the first time anything of it is asked for, kept as a file, and served from that file. Archives of
 * types starting with {@code large} are {@code largeBytes}, all others {@code smallBytes}; those of types
 * starting with {@code deflated} are also {@code largeBytes}, but with a deflated, provider-like executable
 * ({@link ProviderZips#writeDeflatedProvider}), for measuring {@code h1:}. It also serves the module registry
 * protocol: every module {@code example.test/acme/<name>/<system>} at version 1.0.0, with a small {@code .tar.gz}
 * on the origin itself ({@link BenchModules}). Every answer waits
 * {@code delayMs} first. As a process ({@link #main}) it writes {@code origin.env} (discovery URL, CA
 * file, port) into {@code directory} and runs until killed; tests {@link #start} it in-process.
 *
 * <p>Unlike {@link FakeOrigin} (WireMock stubs, for tests), it holds nothing per provider in memory but its
 * signed checksums, so a run can ask for tens of thousands of providers that were never seen before.
 *
 * <p>Usage: {@code BenchOrigin <directory> <smallBytes> <largeBytes> <delayMs>}
 */
public final class BenchOrigin {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAMESPACE = "acme";
    private static final String VERSION = "1.0.0";
    private static final String PLATFORM = "linux_amd64";
    private static final Pattern PROVIDER = Pattern.compile("/v1/providers/" + NAMESPACE
            + "/([a-z][a-z0-9-]{0,63})/(versions|" + Pattern.quote(VERSION) + "/download/linux/amd64)");
    private static final Pattern FILE = Pattern.compile("/files/([a-z][a-z0-9-]{0,63})/(.+)");

    /** One provider's published release: its archive file and signed checksums. */
    private record Published(Path archive, String fileName, String sha256, byte[] sums, byte[] signature) {}

    private final Path files;
    private final long smallBytes;
    private final long largeBytes;
    private final int delayMs;
    private final TestPgpKey key = TestPgpKey.generate("Bench Origin <bench@example.test>");
    private final Map<String, Published> published = new ConcurrentHashMap<>();
    private final BenchModules modules;

    private BenchOrigin(Path files, long smallBytes, long largeBytes, int delayMs, BenchModules modules) {
        this.files = files;
        this.modules = modules;
        this.smallBytes = smallBytes;
        this.largeBytes = largeBytes;
        this.delayMs = delayMs;
    }

    /** A started origin: its port and CA, until closed. */
    public record Running(HttpsServer server, ExecutorService threads, Path caPem) implements AutoCloseable {

        /** The port the origin listens on, on the loopback address. */
        public int port() {
            return server.getAddress().getPort();
        }

        /** The discovery base URL ({@code https://127.0.0.1:<port>/}). */
        public URI baseUrl() {
            return URI.create("https://127.0.0.1:" + port() + "/");
        }

        @Override
        public void close() {
            server.stop(0);
            threads.shutdownNow();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: BenchOrigin <directory> <smallBytes> <largeBytes> <delayMs>");
            System.exit(2);
        }
        Path directory = Path.of(args[0]);
        Running running = start(directory, Long.parseLong(args[1]), Long.parseLong(args[2]), Integer.parseInt(args[3]));
        Files.writeString(
                directory.resolve("origin.env"),
                "DISCOVERY_URL=" + running.baseUrl() + "\n" + "ORIGIN_CA="
                        + running.caPem().toAbsolutePath() + "\n" + "ORIGIN_PORT=" + running.port() + "\n",
                StandardCharsets.UTF_8);
        System.out.println("bench origin ready on 127.0.0.1:" + running.port());
        new CountDownLatch(1).await();
    }

    /**
     * Starts the origin on a free loopback port, keeping its files and TLS material in {@code directory}: what
     * {@link #main} runs, and what a test starts in-process.
     */
    public static Running start(Path directory, long smallBytes, long largeBytes, int delayMs) throws IOException {
        Files.createDirectories(directory);
        TestCertificates certificates = TestCertificates.create(directory.resolve("tls"), "bench-origin");
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverSslContext()));
        ExecutorService threads = Executors.newFixedThreadPool(512);
        server.setExecutor(threads);
        BenchOrigin origin = new BenchOrigin(
                Files.createDirectories(directory.resolve("files")),
                smallBytes,
                largeBytes,
                delayMs,
                new BenchModules(
                        URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/")));
        server.createContext("/", exchange -> {
            try (exchange) {
                origin.answer(exchange);
            } catch (IOException | RuntimeException e) {
                System.err.println("bench origin: " + exchange.getRequestURI() + ": " + e);
            }
        });
        server.start();
        return new Running(server, threads, certificates.caPem());
    }

    private void answer(HttpExchange exchange) throws IOException {
        if (delayMs > 0) {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        String path = exchange.getRequestURI().getPath();
        if (path.equals("/.well-known/terraform.json")) {
            send(
                    exchange,
                    "application/json",
                    ("{\"providers.v1\":\"/v1/providers/\",\"modules.v1\":\"" + BenchModules.BASE_PATH + "\"}")
                            .getBytes(StandardCharsets.UTF_8));
            return;
        }
        Optional<BenchModules.Answer> module = modules.answer(path);
        if (module.isPresent()) {
            BenchModules.Answer answer = module.get();
            answer.terraformGet().ifPresent(url -> exchange.getResponseHeaders().set("X-Terraform-Get", url));
            if (answer.body().length == 0) {
                exchange.sendResponseHeaders(answer.status(), -1);
            } else {
                send(exchange, answer.contentType(), answer.body());
            }
            return;
        }
        Matcher provider = PROVIDER.matcher(path);
        if (provider.matches()) {
            String type = provider.group(1);
            send(
                    exchange,
                    "application/json",
                    (provider.group(2).equals("versions") ? versions() : download(type))
                            .getBytes(StandardCharsets.UTF_8));
            return;
        }
        Matcher file = FILE.matcher(path);
        if (file.matches()) {
            Published release = publish(file.group(1));
            String name = file.group(2);
            if (name.equals(release.fileName())) {
                exchange.getResponseHeaders().set("Content-Type", "application/zip");
                exchange.sendResponseHeaders(200, Files.size(release.archive()));
                try (OutputStream out = exchange.getResponseBody()) {
                    Files.copy(release.archive(), out);
                }
                return;
            }
            if (name.equals("SHA256SUMS")) {
                send(exchange, "text/plain", release.sums());
                return;
            }
            if (name.equals("SHA256SUMS.sig")) {
                send(exchange, "application/octet-stream", release.signature());
                return;
            }
        }
        exchange.sendResponseHeaders(404, -1);
    }

    private static String versions() {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode version = root.putArray("versions").addObject().put("version", VERSION);
        version.putArray("protocols").add("5.0");
        version.putArray("platforms").addObject().put("os", "linux").put("arch", "amd64");
        return root.toString();
    }

    private String download(String type) {
        Published release = publish(type);
        String base = "/files/" + type + "/";
        ObjectNode download = JSON.createObjectNode()
                .put("os", "linux")
                .put("arch", "amd64")
                .put("filename", release.fileName())
                .put("download_url", base + release.fileName())
                .put("shasums_url", base + "SHA256SUMS")
                .put("shasums_signature_url", base + "SHA256SUMS.sig")
                .put("shasum", release.sha256());
        download.putArray("protocols").add("5.0");
        download.putObject("signing_keys")
                .putArray("gpg_public_keys")
                .addObject()
                .put("key_id", key.signingKeyId())
                .put("ascii_armor", key.armoredPublicKey());
        return download.toString();
    }

    private Published publish(String type) {
        return published.computeIfAbsent(type, t -> {
            String fileName = "terraform-provider-" + t + "_" + VERSION + "_" + PLATFORM + ".zip";
            Path archive = files.resolve(fileName);
            String sha256;
            try {
                Path partial = files.resolve(fileName + ".partial");
                if (t.startsWith("deflated")) {
                    ProviderZips.writeDeflatedProvider(partial, t, VERSION, PLATFORM, largeBytes);
                } else {
                    ProviderZips.writeProvider(
                            partial, t, VERSION, PLATFORM, t.startsWith("large") ? largeBytes : smallBytes);
                }
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                sha256 = sha256(archive);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] sums = (sha256 + "  " + fileName + "\n").getBytes(StandardCharsets.UTF_8);
            return new Published(archive, fileName, sha256, sums, key.signDetached(sums));
        });
    }

    private static void send(HttpExchange exchange, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static String sha256(Path file) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return java.util.HexFormat.of().formatHex(digest.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
