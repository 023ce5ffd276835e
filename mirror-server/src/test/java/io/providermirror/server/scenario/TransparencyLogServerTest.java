package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.providermirror.server.cli.LogCommand;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.tlog.Checkpoint;
import io.providermirror.server.tlog.LogAudit;
import io.providermirror.server.tlog.LogSource;
import io.providermirror.server.tlog.NoteVerifier;
import io.providermirror.server.tlog.TileName;
import io.providermirror.testkit.FakeOrigin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The transparency log of a running mirror: its decisions recorded, served under /log/ as a C2SP client reads it,
 * checked by {@code log verify}, and a changed entry or a log put back to an earlier state found out.
 */
final class TransparencyLogServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MirrorExtension fixture = MirrorExtension.with((builder, directory) -> builder.set(
                    "cache.indexTtl", Duration.ofMinutes(15).toMillis() + "ms")
            .set("policy.deny", List.of(Map.of("provider", "example.test/acme/banned"))));

    /** The mirror's /log/ as a client over HTTP reads it. */
    private static final LogSource SERVED = new LogSource() {
        @Override
        public Optional<byte[]> checkpoint() throws IOException {
            return read("/log/checkpoint");
        }

        @Override
        public Optional<byte[]> tile(TileName name) throws IOException {
            return read("/log/" + name.path());
        }

        private Optional<byte[]> read(String path) throws IOException {
            try {
                HttpResponse<byte[]> response = fixture.mirror().get(path);
                return response.statusCode() == 404 ? Optional.empty() : Optional.of(response.body());
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
    };

    /**
     * Waits until the log holds an entry of {@code kind} that mentions {@code text} (an archive is recorded after
     * its answer is sent).
     */
    private static void awaitEntry(String kind, String text) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            fixture.mirror().mirror.core().log().decisions().flush(Duration.ofSeconds(30));
            return entriesServed().stream()
                    .anyMatch(e ->
                            e.get("kind").asText().equals(kind) && e.toString().contains(text));
        });
    }

    private static List<JsonNode> entriesServed() throws Exception {
        return entries(LogAudit.audit(
                SERVED, fixture.mirror().mirror.core().log().log().key().verifier()));
    }

    private static NoteVerifier verifierFromStatusPage() throws Exception {
        String page = new String(fixture.mirror().get("/").body(), StandardCharsets.UTF_8);
        int at = page.indexOf("<pre id=\"log-verifier-key\"><code>") + "<pre id=\"log-verifier-key\"><code>".length();
        return NoteVerifier.parse(page.substring(at, page.indexOf("</code>", at)));
    }

    private static List<JsonNode> entries(LogAudit.Audited audited) throws IOException {
        List<JsonNode> entries = new ArrayList<>();
        for (byte[] entry : audited.entries()) {
            entries.add(JSON.readTree(entry));
        }
        return entries;
    }

    @Test
    void decisionsAreLoggedAndServedAsTlogTiles() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "tool", "1.2.0", "linux_amd64");
        fixture.origin().publish("acme", "banned", "1.0.0", "linux_amd64");
        String path = fixture.mirror().providerPath("acme", "tool");
        assertThat(fixture.mirror().get(path + "1.2.0.json").statusCode()).isEqualTo(200);
        assertThat(fixture.mirror().get(path + release.fileName("linux_amd64")).statusCode())
                .isEqualTo(200);
        String banned = fixture.mirror().providerPath("acme", "banned") + "index.json";
        assertThat(fixture.mirror().get(banned).statusCode()).isEqualTo(404);
        awaitEntry("archive.committed", "acme/tool");
        awaitEntry("policy.refused", "acme/banned");

        HttpResponse<byte[]> checkpoint = fixture.mirror().get("/log/checkpoint");
        assertThat(checkpoint.statusCode()).isEqualTo(200);
        assertThat(checkpoint.headers().firstValue("content-type")).contains("text/plain; charset=utf-8");
        assertThat(checkpoint.headers().firstValue("cache-control")).contains("no-cache");
        NoteVerifier verifier = verifierFromStatusPage();
        Checkpoint opened = Checkpoint.open(checkpoint.body(), verifier);
        assertThat(opened.origin()).isEqualTo(verifier.name());

        LogAudit.Audited audited = LogAudit.audit(SERVED, verifier);
        List<JsonNode> entries = entries(audited);
        JsonNode verified = entries.stream()
                .filter(e -> e.get("kind").asText().equals("release.verified"))
                .findFirst()
                .orElseThrow();
        assertThat(verified.get("provider").asText()).isEqualTo("example.test/acme/tool");
        assertThat(verified.get("version").asText()).isEqualTo("1.2.0");
        // The whole fingerprint of the key that signed (a v4 fingerprint ends in the key's ID).
        assertThat(verified.get("signingKeys").get(0).asText())
                .matches("[0-9A-F]{40}")
                .endsWith(fixture.origin().signingKey().signingKeyId());
        assertThat(verified.get("shasumsSha256").get(0).asText()).matches("[0-9a-f]{64}");
        JsonNode committed = entries.stream()
                .filter(e -> e.get("kind").asText().equals("archive.committed"))
                .findFirst()
                .orElseThrow();
        assertThat(committed.get("platform").asText()).isEqualTo("linux_amd64");
        assertThat(committed.get("zh").asText()).startsWith("zh:");
        assertThat(committed.get("h1").asText()).startsWith("h1:");
        JsonNode refused = entries.stream()
                .filter(e -> e.get("kind").asText().equals("policy.refused"))
                .findFirst()
                .orElseThrow();
        assertThat(refused.get("subject").asText()).isEqualTo(banned);
        assertThat(refused.get("reason").asText()).contains("policy.deny[0]");

        HttpResponse<byte[]> tile = fixture.mirror()
                .get("/log/" + new TileName(0, 0, (int) audited.checkpoint().size()).path());
        assertThat(tile.statusCode()).isEqualTo(200);
        assertThat(tile.headers().firstValue("cache-control")).contains("max-age=31536000, immutable");
        assertThat(fixture.mirror().get("/log/tile/0/000.p/255").statusCode()).isEqualTo(404);
        assertThat(MirrorFixture.error(fixture.mirror().get("/log/tile/0/0"))).contains("c2sp.org/tlog-tiles");
    }

    private static String run(CommandLine.IFactory ignored, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Map<String, String> environment = Map.of(
                ConfigLoader.ENV_PREFIX + "CACHE_DIRECTORY",
                fixture.mirror().cacheDirectory.toString());
        int code = new CommandLine(new LogCommand.Verify(out, environment)).execute(args);
        return code + " " + bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void logVerifyFindsAChangedEntryAndALogPutBack() throws Exception {
        FakeOrigin.Release release = fixture.origin().publish("acme", "other", "2.0.0", "linux_amd64");
        String path = fixture.mirror().providerPath("acme", "other");
        assertThat(fixture.mirror().get(path + "2.0.0.json").statusCode()).isEqualTo(200);
        awaitEntry("release.verified", "acme/other");
        Path saved = fixture.directory().resolve("saved-checkpoint");
        assertThat(run(null, "--save", saved.toString())).startsWith("0 ").contains("check out");
        assertThat(fixture.mirror().get(path + release.fileName("linux_amd64")).statusCode())
                .isEqualTo(200);
        awaitEntry("archive.committed", "acme/other");
        assertThat(run(null, "--saved", saved.toString())).startsWith("0 ").contains("only grew");

        Path log = fixture.mirror().cacheDirectory.resolve("metadata").resolve("log");
        Path checkpoint;
        try (Stream<Path> files = Files.walk(log)) {
            checkpoint = files.filter(file -> file.getFileName().toString().equals("checkpoint"))
                    .findFirst()
                    .orElseThrow();
        }
        long size = Long.parseLong(Files.readString(checkpoint).split("\n")[1]);
        Path bundle = checkpoint.resolveSibling("tile/entries/000.p/" + size);
        byte[] original = Files.readAllBytes(bundle);
        byte[] changed = original.clone();
        int at = new String(changed, StandardCharsets.ISO_8859_1).indexOf("2.0.0");
        changed[at] = '3'; // 2.0.0 becomes 3.0.0
        Files.write(bundle, changed);
        assertThat(run(null)).startsWith("1 ").contains("FAILED").contains("do not give the checkpoint's root hash");
        Files.write(bundle, original);
        assertThat(run(null)).startsWith("0 ");

        // The log put back to the saved checkpoint: it verifies alone, and the later checkpoint shows it shrank.
        Path later = fixture.directory().resolve("later-checkpoint");
        assertThat(run(null, "--save", later.toString())).startsWith("0 ");
        byte[] current = Files.readAllBytes(checkpoint);
        Files.write(checkpoint, Files.readAllBytes(saved));
        assertThat(run(null, "--saved", later.toString())).startsWith("1 ").contains("the log shrank");
        Files.write(checkpoint, current);
    }
}
