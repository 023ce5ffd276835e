package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.operator.OperatorService;
import io.providermirror.testkit.GitRepository;
import io.providermirror.testkit.ModuleArchives;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator API on a running mirror: a bundle made by {@code export} imported through it (and through the
 * {@code import} command, which uses it when the mirror holds the cache directory) is served at once, a pin
 * released through it is fetched again at once; and what it refuses: requests without the operator token, on the
 * management listener, bundles that reach outside the cache or hold links, bodies beyond its bound.
 */
final class OperatorApiTest {

    private static final String OPERATOR_TOKEN = "operator-secret-token";
    private static final String CLIENT_TOKEN = "client-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @RegisterExtension
    final ModuleRegistryExtension modules = new ModuleRegistryExtension();

    private MirrorFixture mirror;

    /** The commands set the root logger to WARN, as for people; other tests in this JVM expect it as it was. */
    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    @AfterEach
    void restoreRootLevel() {
        root().setLevel(rootLevel);
    }

    private MirrorFixture.Builder builder() {
        return MirrorFixture.builder(tmp.resolve("cache"), modules.origin())
                .set("cache.indexTtl", "15m")
                .set("operator.tokens", List.of(MirrorAuth.hash(OPERATOR_TOKEN)));
    }

    private static String modulePath(String rest) {
        return "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/a/aws/" + rest;
    }

    private static Map<String, String> module(String text) {
        return Map.of("main.tf", "output \"v\" {\n  value = \"" + text + "\"\n}\n");
    }

    /** A configuration calling provider {@code acme/carried} and module {@code corp/a/aws} at exactly {@code version}. */
    private Path configuration(String version) throws IOException {
        Path directory = Files.createDirectories(tmp.resolve("configuration-" + version));
        Files.writeString(directory.resolve("main.tf"), """
                terraform {
                  required_providers {
                    carried = {
                      source  = "%1$s/acme/carried"
                      version = "%2$s"
                    }
                  }
                }
                module "a" {
                  source  = "%1$s/corp/a/aws"
                  version = "%2$s"
                }
                """.formatted(MirrorFixture.HOST, version));
        return directory;
    }

    /** Exports what {@link #configuration} calls at {@code version} from a mirror that reaches the origin. */
    private Path export(Path sourceConfig, String version) throws IOException {
        Path bundle = tmp.resolve("bundle-" + version + ".tar");
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exit = run(
                new io.providermirror.server.cli.ExportCommand(into(output), Map.of()),
                "--config",
                sourceConfig.toString(),
                "--platform",
                "linux_amd64",
                "--dir",
                configuration(version).toString(),
                "--output",
                bundle.toString());
        assertThat(exit).as(output.toString(StandardCharsets.UTF_8)).isZero();
        return bundle;
    }

    private static int run(Object command, String... args) {
        return new picocli.CommandLine(command).execute(args);
    }

    private static PrintStream into(ByteArrayOutputStream output) {
        return new PrintStream(output, true, StandardCharsets.UTF_8);
    }

    private HttpResponse<byte[]> post(String path, String token, HttpRequest.BodyPublisher body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(mirror.url(path))
                .timeout(Duration.ofSeconds(90))
                .POST(body);
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return mirror.send(request.build());
    }

    private static JsonNode json(HttpResponse<byte[]> response) throws IOException {
        return JSON.readTree(response.body());
    }

    @Test
    void aBundleImportedThroughTheApiIsServedAtOnceByTheRunningMirrorAndTwiceAddsNothing() throws Exception {
        modules.origin().publish("acme", "carried", "1.0.0", "linux_amd64");
        modules.origin().publish("acme", "carried", "1.1.0", "linux_amd64");
        modules.registry().serveArchive("/archives/a-0.tar.gz", ModuleArchives.tarGz(module("a 0")));
        modules.registry().serveArchive("/archives/a-1.tar.gz", ModuleArchives.tarGz(module("a 1")));
        modules.registry().publish("corp", "a", "aws", "1.0.0", "/archives/a-0.tar.gz");
        modules.registry().publish("corp", "a", "aws", "1.1.0", "/archives/a-1.tar.gz");
        Path source = Files.writeString(
                tmp.resolve("source.yaml"),
                MirrorFixture.builder(tmp.resolve("source-cache"), modules.origin())
                        .yaml());
        Path first = export(source, "1.0.0");
        Path second = export(source, "1.1.0");
        // The closed network's mirror holds 1.0.0 and serves its lists from memory when the second bundle comes.
        MirrorFixture.Builder target = builder().set("upstream.offline", true);
        modules.origin().close();
        Path targetConfig = Files.writeString(tmp.resolve("target.yaml"), target.yaml());
        ByteArrayOutputStream stopped = new ByteArrayOutputStream();
        assertThat(run(
                        new io.providermirror.server.cli.ImportCommand(into(stopped), Map.of()),
                        "--config",
                        targetConfig.toString(),
                        first.toString()))
                .as(stopped.toString(StandardCharsets.UTF_8))
                .isZero();
        mirror = modules.start(target);
        String index = mirror.providerPath("acme", "carried") + "index.json";
        assertThat(new String(mirror.get(index).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"versions\":{\"1.0.0\":{}}}");
        assertThat(new String(mirror.get(modulePath("versions")).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"}]}]}");

        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exit = run(
                new io.providermirror.server.cli.ImportCommand(
                        into(output), Map.of("PROVIDER_MIRROR_OPERATOR_TOKEN", OPERATOR_TOKEN)),
                "--config",
                targetConfig.toString(),
                "--mirror-url",
                "https://localhost:" + mirror.mirror.port(),
                second.toString());
        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        assertThat(printed)
                .contains("import: cache directory " + tmp.resolve("cache").toAbsolutePath())
                .contains("importing through its operator API at https://localhost:" + mirror.mirror.port() + "/")
                .contains("1 provider(s), 1 provider version(s), 1 archive(s) for linux_amd64; 1 module(s), 1 module "
                        + "version(s), verified and cached; new here: 1 archive(s), 1 module version(s), 2 version(s) "
                        + "added to version lists");

        assertThat(new String(mirror.get(index).body(), StandardCharsets.UTF_8))
                .as("the running mirror lists the imported version at once")
                .isEqualTo("{\"versions\":{\"1.0.0\":{},\"1.1.0\":{}}}");
        assertThat(new String(mirror.get(modulePath("versions")).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"modules\":[{\"versions\":[{\"version\":\"1.0.0\"},{\"version\":\"1.1.0\"}]}]}");
        HttpResponse<byte[]> document = mirror.get(mirror.providerPath("acme", "carried") + "1.1.0.json");
        assertThat(document.statusCode()).isEqualTo(200);
        HttpResponse<byte[]> download = mirror.get(modulePath("1.1.0/download"));
        assertThat(download.statusCode()).isEqualTo(204);

        HttpResponse<byte[]> again = post("/api/v1/imports", OPERATOR_TOKEN, HttpRequest.BodyPublishers.ofFile(second));
        assertThat(again.statusCode())
                .as(new String(again.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        JsonNode answer = json(again);
        assertThat(answer.path("addedNothing").asBoolean()).isTrue();
        assertThat(answer.path("carried").path("moduleVersions").asInt()).isEqualTo(1);
        assertThat(answer.path("carried").path("archives").asInt()).isEqualTo(1);
        assertThat(answer.path("summary").asText()).endsWith("verified; nothing new: the cache held all of it already");
        assertThat(uploads()).as("the uploaded bundles are gone").isEmpty();
    }

    private List<Path> uploads() throws IOException {
        Path directory = tmp.resolve("cache").resolve(OperatorService.UPLOADS);
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (var files = Files.list(directory)) {
            return files.toList();
        }
    }

    @Test
    void aPinReleasedThroughTheApiIsFetchedAgainAtOnceWithTheRememberedFailureForgotten() throws Exception {
        GitRepository repository = modules.git().createRepository("net");
        repository.tag("v1.0.0", repository.commit(module("first"), "first"), true);
        modules.registry().publish("corp", "gitnet", "aws", "1.0.0", "git::" + repository.url() + "?ref=v1.0.0");
        MirrorFixture.Builder builder = builder()
                .set(
                        "upstream.hosts." + MirrorFixture.HOST.replace(".", "\\.") + ".downloadHosts",
                        List.of(modules.git().url("x").getAuthority()))
                .set("upstream.verificationFailureTtl", "10m");
        mirror = modules.start(builder);
        String download = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/gitnet/aws/1.0.0/download";
        String archive = "/registry/" + MirrorFixture.HOST + "/modules.v1/corp/gitnet/aws/1.0.0/module.tar.gz";
        assertThat(mirror.get(download).statusCode()).isEqualTo(204);
        assertThat(mirror.get(archive).statusCode()).isEqualTo(200);

        repository.moveTag("v1.0.0", repository.commit(module("second"), "second"));
        ModuleAddress address = new ModuleAddress(MirrorFixture.HOST, "corp", "gitnet", "aws");
        ProviderVersion version = new ProviderVersion("1.0.0");
        mirror.mirror
                .core()
                .blobs()
                .remove(io.providermirror.server.core.CacheLayout.moduleArchive(address, version, "tar.gz"));
        assertThat(mirror.get(archive).statusCode())
                .as("the moved tag differs from the pin")
                .isEqualTo(502);
        assertThat(MirrorFixture.error(mirror.get(archive)))
                .as("remembered, not fetched again")
                .contains("upstream.verificationFailureTtl");

        Path config = Files.writeString(tmp.resolve("mirror.yaml"), builder.yaml());
        Path tokenFile = Files.writeString(tmp.resolve("operator.token"), OPERATOR_TOKEN + "\n");
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exit = run(
                new io.providermirror.server.cli.ModulesCommand.Accept(into(output), Map.of()),
                "--config",
                config.toString(),
                "--mirror-url",
                "https://localhost:" + mirror.mirror.port() + "/",
                "--operator-token-file",
                tokenFile.toString(),
                address.toString(),
                "1.0.0");
        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        assertThat(printed)
                .contains("modules accept: cache directory "
                        + tmp.resolve("cache").toAbsolutePath())
                .contains("through its operator API")
                .contains("was pinned at ");
        mirror.awaitDecision("module.pinReleased", address.toString());

        HttpResponse<byte[]> released = mirror.get(download);
        assertThat(released.headers().firstValue("X-Cache"))
                .as("a released pin no longer answers the download")
                .contains("MISS");
        HttpResponse<byte[]> fetched = mirror.get(archive);
        assertThat(fetched.statusCode())
                .as(new String(fetched.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(mirror.mirror
                        .core()
                        .modules()
                        .pin(address, version)
                        .orElseThrow()
                        .commitId())
                .isEqualTo(repository.resolve("v1.0.0"));

        HttpResponse<byte[]> unknown = post(
                "/api/v1/modules/" + MirrorFixture.HOST + "/corp/other/aws/1.0.0/accept",
                OPERATOR_TOKEN,
                HttpRequest.BodyPublishers.noBody());
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(MirrorFixture.error(unknown)).contains("has no pin");
    }

    @Test
    void withoutAnOperatorTokenTheCommandsOnARunningMirrorSayWhatToDo() throws Exception {
        MirrorFixture.Builder builder = builder();
        mirror = modules.start(builder);
        Path config = Files.writeString(tmp.resolve("mirror.yaml"), builder.yaml());
        Path bundle = Files.write(tmp.resolve("b.tar"), new byte[] {1});
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exit = run(
                new io.providermirror.server.cli.ImportCommand(into(output), Map.of()),
                "--config",
                config.toString(),
                bundle.toString());
        assertThat(exit).isEqualTo(2);
        assertThat(output.toString(StandardCharsets.UTF_8))
                .contains("import: cache directory ")
                .contains("--operator-token-file FILE, or the environment variable PROVIDER_MIRROR_OPERATOR_TOKEN")
                .contains("or stop the mirror first");

        ByteArrayOutputStream wrong = new ByteArrayOutputStream();
        int refused = run(
                new io.providermirror.server.cli.ModulesCommand.Accept(
                        into(wrong), Map.of("PROVIDER_MIRROR_OPERATOR_TOKEN", "not-the-token")),
                "--config",
                config.toString(),
                "--mirror-url",
                "https://localhost:" + mirror.mirror.port(),
                MirrorFixture.HOST + "/corp/a/aws",
                "1.0.0");
        assertThat(refused).isEqualTo(2);
        assertThat(wrong.toString(StandardCharsets.UTF_8)).contains("this token does not open the operator API");
    }

    @Test
    void theApiOpensToTheOperatorTokenOnlyNeverToAClientToken() throws Exception {
        mirror = modules.start(builder().set("auth.tokens", List.of(MirrorAuth.hash(CLIENT_TOKEN))));
        String accept = "/api/v1/modules/" + MirrorFixture.HOST + "/corp/a/aws/1.0.0/accept";
        HttpResponse<byte[]> none = post(accept, null, HttpRequest.BodyPublishers.noBody());
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).isPresent();
        assertThat(MirrorFixture.error(none)).contains("operator token");
        assertThat(post(accept, CLIENT_TOKEN, HttpRequest.BodyPublishers.noBody())
                        .statusCode())
                .as("a client token")
                .isEqualTo(403);
        assertThat(post(accept, "wrong", HttpRequest.BodyPublishers.noBody()).statusCode())
                .isEqualTo(403);
        assertThat(post("/api/v1/imports", CLIENT_TOKEN, HttpRequest.BodyPublishers.ofByteArray(new byte[100]))
                        .statusCode())
                .isEqualTo(403);
        assertThat(post(accept, OPERATOR_TOKEN, HttpRequest.BodyPublishers.noBody())
                        .statusCode())
                .as("the operator token opens it (and this version has no pin)")
                .isEqualTo(404);
        HttpResponse<byte[]> get = mirror.send(HttpRequest.newBuilder(mirror.url("/api/v1/imports"))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                .GET()
                .build());
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(post("/api/v1/nothing", OPERATOR_TOKEN, HttpRequest.BodyPublishers.noBody())
                        .statusCode())
                .isEqualTo(404);
        assertThat(post(
                                "/api/v1/modules/" + MirrorFixture.HOST + "/corp/a/aws/x/accept",
                                OPERATOR_TOKEN,
                                HttpRequest.BodyPublishers.noBody())
                        .statusCode())
                .isEqualTo(400);
        HttpResponse<byte[]> operatorAsClient =
                mirror.send(HttpRequest.newBuilder(mirror.url(mirror.providerPath("acme", "carried") + "index.json"))
                        .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                        .GET()
                        .build());
        assertThat(operatorAsClient.statusCode())
                .as("the operator token is no client token")
                .isEqualTo(401);
    }

    @Test
    void withNoOperatorTokenConfiguredEveryApiPathIsNotFound() throws Exception {
        mirror = modules.start(MirrorFixture.builder(tmp.resolve("cache"), modules.origin()));
        assertThat(post("/api/v1/imports", OPERATOR_TOKEN, HttpRequest.BodyPublishers.ofByteArray(new byte[10]))
                        .statusCode())
                .isEqualTo(404);
        assertThat(mirror.get("/api/v1/imports").statusCode()).isEqualTo(404);
        assertThat(mirror.get("/api").statusCode()).isEqualTo(404);
    }

    @Test
    void theManagementListenerNeverServesTheApi() throws Exception {
        mirror = modules.start(builder().set("management.port", 0));
        int port = mirror.mirror.managementPort().orElseThrow();
        HttpClient plain =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (String path :
                List.of("/api/v1/imports", "/api/v1/modules/" + MirrorFixture.HOST + "/corp/a/aws/1.0.0/accept")) {
            HttpResponse<byte[]> response = plain.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                            .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[10]))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(response.statusCode()).as(path).isEqualTo(404);
            assertThat(MirrorFixture.error(response)).contains("management listener");
        }
        assertThat(post("/api/v1/nothing", OPERATOR_TOKEN, HttpRequest.BodyPublishers.noBody())
                        .statusCode())
                .as("the main listener serves it")
                .isEqualTo(404);
    }

    /** A bundle whose manifest lists {@code entry} (with its true size and sha256), then that entry. */
    private static byte[] bundleWith(TarArchiveEntry entry, byte[] content) throws Exception {
        String sha256 =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        byte[] manifest = JSON.writeValueAsBytes(Map.of(
                "format",
                1,
                "created",
                "2026-01-01T00:00:00Z",
                "tool",
                "test",
                "entries",
                List.of(Map.of("path", entry.getName(), "size", content.length, "sha256", sha256)),
                "releases",
                List.of(),
                "modules",
                List.of()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            TarArchiveEntry first = new TarArchiveEntry("provider-mirror-bundle.json");
            first.setSize(manifest.length);
            tar.putArchiveEntry(first);
            tar.write(manifest);
            tar.closeArchiveEntry();
            entry.setSize(entry.isFile() ? content.length : 0);
            tar.putArchiveEntry(entry);
            tar.write(content);
            tar.closeArchiveEntry();
        }
        return bytes.toByteArray();
    }

    @Test
    void bundlesWhoseEntriesReachOutOfTheCacheOrAreLinksAreRefusedWithNothingWritten() throws Exception {
        mirror = modules.start(builder());
        byte[] content = "{}".getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry link =
                new TarArchiveEntry(MirrorFixture.HOST + "/acme/carried/versions.json", TarConstants.LF_SYMLINK);
        link.setLinkName("/etc/passwd");
        Map<String, TarArchiveEntry> attacks = Map.of(
                "../x", new TarArchiveEntry("../x", true),
                "an absolute name", new TarArchiveEntry(tmp.resolve("absolute").toString(), true),
                "a symbolic link", link);
        for (Map.Entry<String, TarArchiveEntry> attack : attacks.entrySet()) {
            byte[] bundle = bundleWith(attack.getValue(), attack.getValue().isSymbolicLink() ? new byte[0] : content);
            HttpResponse<byte[]> response =
                    post("/api/v1/imports", OPERATOR_TOKEN, HttpRequest.BodyPublishers.ofByteArray(bundle));
            assertThat(response.statusCode())
                    .as(attack.getKey() + ": " + new String(response.body(), StandardCharsets.UTF_8))
                    .isEqualTo(400);
            assertThat(MirrorFixture.error(response)).as(attack.getKey()).contains("the bundle was refused");
        }
        assertThat(tmp.resolve("x")).doesNotExist();
        assertThat(tmp.resolve("cache").resolve(OperatorService.UPLOADS).resolve("../x"))
                .doesNotExist();
        assertThat(tmp.resolve("absolute")).doesNotExist();
        assertThat(tmp.resolve("cache").resolve(MirrorFixture.HOST)).doesNotExist();
        await().untilAsserted(() -> assertThat(uploads()).isEmpty());
    }

    /** Writes {@code request} on a TLS connection to the mirror and reads the answer's status line. */
    private String exchange(byte[] request) throws Exception {
        String answer = answers(request);
        return answer.substring(0, answer.indexOf("\r\n"));
    }

    /** All the mirror answers to {@code request} on a connection of its own, until it closes the connection. */
    private String answers(byte[] request) throws Exception {
        try (SSLSocket socket = RawTls.connect(mirror.mirror, 30_000)) {
            socket.startHandshake();
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static byte[] head(String path, String... headers) {
        StringBuilder text = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: localhost\r\n");
        text.append("Authorization: Bearer ").append(OPERATOR_TOKEN).append("\r\n");
        for (String header : headers) {
            text.append(header).append("\r\n");
        }
        return text.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A client that is still sending its body when the refusal comes gets the whole refusal and a connection that
     * ends cleanly: the mirror reads and drops a small body before it closes, since closing with the client's bytes
     * unread resets the connection (the client's write fails, and the refusal is lost with it). The refusal is read
     * first here, so the body is surely sent after it, as a slower client's would be.
     */
    @Test
    void aRefusedImportsSmallBodyIsReadAndDroppedSoTheClientGetsTheWhole403() throws Exception {
        mirror = modules.start(builder().set("auth.tokens", List.of(MirrorAuth.hash(CLIENT_TOKEN))));
        byte[] body = new byte[32 * 1024];
        try (SSLSocket socket = RawTls.connect(mirror.mirror, 60_000)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/v1/imports HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + CLIENT_TOKEN
                            + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String head = RawTls.head(in);
            assertThat(head).startsWith("HTTP/1.1 403 Forbidden\r\n").containsIgnoringCase("connection: close\r\n");
            int length = RawTls.contentLength(head);
            JsonNode errors = JSON.readTree(in.readNBytes(length)).path("errors");
            assertThat(errors.get(0).asText()).contains("this token does not open the operator API");

            RawTls.writeInPieces(out, body);
            assertThat(in.read())
                    .as("the connection ends after the body, cleanly")
                    .isEqualTo(-1);
        }
    }

    /**
     * A client that waits for {@code 100 Continue} before sending its body (curl does for a body over 1 MiB, as in
     * the manual's import command) gets it once the import is taken, then the import's answer; an import that is
     * refused gets its refusal instead, without the 100.
     */
    @Test
    void anImportThatExpects100ContinueGetsItOnceTakenAndThenItsAnswer() throws Exception {
        mirror = modules.start(builder().set("auth.tokens", List.of(MirrorAuth.hash(CLIENT_TOKEN))));
        byte[] body = new byte[4096];
        try (SSLSocket socket = RawTls.connect(mirror.mirror, 60_000)) {
            OutputStream out = socket.getOutputStream();
            out.write(head("/api/v1/imports", "Content-Length: " + body.length, "Expect: 100-continue"));
            out.flush();
            InputStream in = socket.getInputStream();
            assertThat(RawTls.head(in)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");

            out.write(body);
            out.flush();
            String answer = RawTls.head(in);
            assertThat(answer).as("4 KiB of zeros are no bundle").startsWith("HTTP/1.1 400 ");
            int length = RawTls.contentLength(answer);
            assertThat(JSON.readTree(in.readNBytes(length)).path("errors").isArray())
                    .isTrue();
        }

        try (SSLSocket socket = RawTls.connect(mirror.mirror, 60_000)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/v1/imports HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + CLIENT_TOKEN
                            + "\r\nContent-Length: " + body.length + "\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawTls.head(socket.getInputStream()))
                    .as("refused before the body: no 100")
                    .startsWith("HTTP/1.1 403 Forbidden\r\n");
        }
    }

    @Test
    void aBodyBeyondTheBoundIsRefusedWith413WhetherAnnouncedOrStreamed() throws Exception {
        mirror = modules.start(builder().set("operator.maxBundleSize", "4KiB"));
        assertThat(exchange(head("/api/v1/imports", "Content-Length: 1000000")))
                .as("announced")
                .isEqualTo("HTTP/1.1 413 Request Entity Too Large");

        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        streamed.write(head("/api/v1/imports", "Transfer-Encoding: chunked"));
        byte[] chunk = new byte[4 * 1024 + 1];
        streamed.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        streamed.write(chunk);
        streamed.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(exchange(streamed.toByteArray())).as("streamed").isEqualTo("HTTP/1.1 413 Request Entity Too Large");
        await().untilAsserted(() ->
                assertThat(uploads()).as("the refused upload is removed").isEmpty());

        HttpResponse<byte[]> small =
                post("/api/v1/imports", OPERATOR_TOKEN, HttpRequest.BodyPublishers.ofByteArray(new byte[4 * 1024]));
        assertThat(small.statusCode())
                .as("within the bound: read, and refused as no bundle")
                .isEqualTo(400);
    }

    /**
     * The operator API refuses an expectation other than {@code 100-continue} as the mirror's other paths do, before
     * it reads the body: the bundle it came with is never taken (it went on to be imported, or refused as no bundle).
     */
    @Test
    void anExpectationOtherThanContinueIsRefusedWith417AndItsBodyIsNeverTaken() throws Exception {
        mirror = modules.start(builder());
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(head("/api/v1/imports", "Content-Length: 5", "Expect: 100-continue, 200-ok"));
        request.write("hello".getBytes(StandardCharsets.US_ASCII));

        assertThat(exchange(request.toByteArray())).isEqualTo("HTTP/1.1 417 Expectation Failed");
        assertThat(exchange(head("/api/v1/imports", "Content-Length: 0", "Expect: 200-ok")))
                .isEqualTo("HTTP/1.1 417 Expectation Failed");
        assertThat(uploads()).isEmpty();
        assertThat(answers(head("/api/v1/imports", "Content-Length: 0", "Expect: 100-continue", "Connection: close")))
                .as("the one expectation met: the empty body read, and refused as no bundle")
                .startsWith("HTTP/1.1 100 Continue\r\n")
                .contains("HTTP/1.1 400 Bad Request\r\n");
        assertThat(answers(head(
                        "/api/v1/imports",
                        "Content-Length: 0",
                        "Expect: 100-continue, 100-continue",
                        "Connection: close")))
                .as("the same, listed twice (no expectation at all to Netty's check)")
                .startsWith("HTTP/1.1 100 Continue\r\n")
                .contains("HTTP/1.1 400 Bad Request\r\n");

        String accept = "/api/v1/modules/" + MirrorFixture.HOST + "/corp/nopin/aws/1.0.0/accept";
        ByteArrayOutputStream withBody = new ByteArrayOutputStream();
        withBody.write(head(accept, "Content-Length: 2", "Expect: 100-continue", "Connection: close"));
        withBody.write("{}".getBytes(StandardCharsets.US_ASCII));
        String answered = answers(withBody.toByteArray());
        assertThat(answered)
                .as("a request with no bundle that expects 100 Continue: it, then the answer")
                .startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 ")
                .doesNotContain("HTTP/1.1 413");
        assertThat(answers(head(accept, "Content-Length: 100000", "Expect: 100-continue")))
                .as("announced over what it reads: refused at once, no 100")
                .startsWith("HTTP/1.1 413 ");
    }
}
