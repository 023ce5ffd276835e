package io.providermirror.server.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.cli.LogCommand;
import io.providermirror.server.tlog.Checkpoint;
import io.providermirror.server.tlog.MerkleHashes;
import io.providermirror.server.tlog.NoteVerifier;
import io.providermirror.testkit.FakeOriginExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Two instances on one bucket (S3Proxy): each keeps its own transparency log in the bucket, beneath its own key, with
 * its own origin line; {@code log verify --config} reads each instance's log through the bucket and both check out;
 * {@code log export} writes every entry of it as a JSON line, from which the checkpoint's root hash is recomputed.
 */
final class FleetLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MirrorBucket bucket = MirrorBucket.named("fleet-log");

    @RegisterExtension
    static final FakeOriginExtension fixture = new FakeOriginExtension();

    @TempDir
    Path tmp;

    /** Runs {@code command} with {@code args}; its exit code, a space, and what it wrote to {@code out}. */
    private static String run(Object command, ByteArrayOutputStream out, String... args) {
        // A command sets up its own logging (the root logger at WARN): put it back for the tests after this one.
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.classic.Level level = root.getLevel();
        try {
            int code = new CommandLine(command).execute(args);
            return code + " " + out.toString(StandardCharsets.UTF_8);
        } finally {
            root.setLevel(level);
        }
    }

    private static String verify(Path config) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        return run(
                new LogCommand.Verify(new PrintStream(bytes, true, StandardCharsets.UTF_8), Map.of()),
                bytes,
                "--config",
                config.toString());
    }

    @Test
    void twoInstancesOnOneBucketEachKeepTheirOwnLogAndBothVerify() throws Exception {
        MirrorFixture.Builder builderA = bucket.mirror(tmp.resolve("a"), fixture.origin(), "fleet");
        MirrorFixture.Builder builderB = bucket.mirror(tmp.resolve("b"), fixture.origin(), "fleet");
        Path configA = Files.writeString(tmp.resolve("a.yaml"), builderA.yaml());
        Path configB = Files.writeString(tmp.resolve("b.yaml"), builderB.yaml());
        fixture.origin().publish("acme", "one", "1.0.0", "linux_amd64");
        fixture.origin().publish("acme", "two", "1.0.0", "linux_amd64");
        String originA;
        String originB;
        try (MirrorFixture a = builderA.start();
                MirrorFixture b = builderB.start()) {
            assertThat(a.get(a.providerPath("acme", "one") + "1.0.0.json").statusCode())
                    .isEqualTo(200);
            assertThat(b.get(b.providerPath("acme", "two") + "1.0.0.json").statusCode())
                    .isEqualTo(200);
            a.mirror.core().log().decisions().flush(Duration.ofSeconds(60));
            b.mirror.core().log().decisions().flush(Duration.ofSeconds(60));
            NoteVerifier keyA = a.mirror.core().log().log().key().verifier();
            NoteVerifier keyB = b.mirror.core().log().log().key().verifier();
            originA = Checkpoint.open(a.get("/log/checkpoint").body(), keyA).origin();
            originB = Checkpoint.open(b.get("/log/checkpoint").body(), keyB).origin();
            assertThat(originA).isNotEqualTo(originB);
            assertThat(keyA.keyIdHex()).isNotEqualTo(keyB.keyIdHex());
            assertThat(new String(a.get("/log/checkpoint").body(), StandardCharsets.UTF_8))
                    .doesNotContain(originB);
        }
        // Read through the bucket, the instances stopped or running alike: each its own log, and both check out.
        assertThat(verify(configA))
                .startsWith("0 ")
                .contains("bucket fleet-log")
                .contains("log verify: " + originA);
        assertThat(verify(configB)).startsWith("0 ").contains("log verify: " + originB);

        // log export: each entry of A's log as a JSON line, with its index and the log's origin line.
        ByteArrayOutputStream exported = new ByteArrayOutputStream();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        String export = run(
                new LogCommand.Export(
                        new PrintStream(exported, true, StandardCharsets.UTF_8),
                        new PrintStream(messages, true, StandardCharsets.UTF_8),
                        Map.of()),
                messages,
                "--config",
                configA.toString());
        assertThat(export).startsWith("0 ");
        List<String> lines = exported.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).isNotEmpty();
        List<byte[]> leaves = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            ObjectNode line = (ObjectNode) JSON.readTree(lines.get(i));
            assertThat(line.get("index").asInt()).isEqualTo(i);
            assertThat(line.get("log").asText()).isEqualTo(originA);
            assertThat(line.get("kind").asText()).isNotBlank();
            line.remove(List.of("index", "log"));
            leaves.add(MerkleHashes.leafHash(JSON.writeValueAsBytes(line)));
        }
        assertThat(lines).anyMatch(line -> line.contains("\"release.verified\"") && line.contains("acme/one"));
        assertThat(lines).noneMatch(line -> line.contains("acme/two"));
        // The exported entries are the log's, whole: their Merkle tree is the one the signed checkpoint commits to.
        Path keyFile = tmp.resolve("a-log").resolve("log-key");
        assertThat(keyFile).exists();
        JsonNode checkpointLine = JSON.createObjectNode();
        Checkpoint checkpoint = checkpoint(configA, originA);
        assertThat(checkpoint.size()).isEqualTo(lines.size());
        assertThat(Arrays.equals(MerkleHashes.root(leaves), checkpoint.rootHash()))
                .as("the root hash of the exported entries is the checkpoint's " + checkpointLine)
                .isTrue();
    }

    /** The checkpoint {@code log verify --save} keeps of the log of {@code config}. */
    private Checkpoint checkpoint(Path config, String origin) throws Exception {
        Path saved = tmp.resolve("saved-" + origin.hashCode());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(run(
                        new LogCommand.Verify(new PrintStream(bytes, true, StandardCharsets.UTF_8), Map.of()),
                        bytes,
                        "--config",
                        config.toString(),
                        "--save",
                        saved.toString()))
                .startsWith("0 ");
        return Checkpoint.parse(Files.readString(saved, StandardCharsets.UTF_8));
    }
}
