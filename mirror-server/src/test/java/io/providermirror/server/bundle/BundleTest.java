package io.providermirror.server.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.cli.ExportCommand;
import io.providermirror.server.cli.ImportCommand;
import io.providermirror.server.scenario.MirrorFixtures;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.FakeOriginExtension;
import io.providermirror.testkit.ProviderZips;
import io.providermirror.testkit.TestPgpKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * export and import: a bundle made from a mirror with internet brings providers into a mirror without,
 * verified again on the way in; a bundle altered in any way is refused whole.
 */
final class BundleTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @RegisterExtension
    final FakeOriginExtension fixture = new FakeOriginExtension();

    private FakeOrigin.Release release;
    private String output;

    @BeforeEach
    void publish() {
        fixture.origin()
                .publish("acme", "carried", "1.0.0", FakeOrigin.Tamper.NONE, 10_000, "linux_amd64", "darwin_arm64");
        release = fixture.origin()
                .publish("acme", "carried", "1.1.0", FakeOrigin.Tamper.NONE, 10_000, "linux_amd64", "darwin_arm64");
        fixture.origin()
                .publish("acme", "carried", "2.0.0", FakeOrigin.Tamper.NONE, 10_000, "linux_amd64", "darwin_arm64");
    }

    @AfterEach
    void stop() {
        // export and import quiet the log as a command does in its own process; the next test in this JVM wants it
        // back.
        root().setLevel(rootLevel);
        root().detachAppender(logLines);
    }

    private final ch.qos.logback.classic.Level rootLevel = root().getLevel();
    private final ListAppender<ILoggingEvent> logLines = new ListAppender<>();

    private static ch.qos.logback.classic.Logger root() {
        return (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    private int run(Object command, String... args) {
        return new CommandLine(command).execute(args);
    }

    private PrintStream capture(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private Path export(String name, String... options) throws Exception {
        Path bundle = tmp.resolve(name);
        int exit = exportTo(bundle, options);
        assertThat(exit).as(output).isZero();
        return bundle;
    }

    /** Runs export from the connected mirror's cache directory, as a user would, leaving what it printed in {@link #output}. */
    private int exportTo(Path bundle, String... options) throws Exception {
        Path config = Files.writeString(
                tmp.resolve("outside.yaml"), MirrorFixtures.yaml(tmp.resolve("outside"), fixture.origin()));
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of(
                "--config",
                config.toString(),
                "--output",
                bundle.toString(),
                "--platform",
                "linux_amd64,darwin_arm64",
                "example.test/acme/carried@~> 1.0"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = run(new ExportCommand(capture(bytes), Map.of()), args.toArray(String[]::new));
        output = bytes.toString(StandardCharsets.UTF_8);
        return exit;
    }

    /** Imports into the air-gapped mirror's cache; its origin is unreachable there (offline). */
    private int importInside(Path bundle, String extraYaml) throws Exception {
        return importInside(extraYaml, bundle.toString());
    }

    private int importInside(String extraYaml, String... arguments) throws Exception {
        Path config = Files.writeString(
                tmp.resolve("inside.yaml"),
                "cache: {directory: '" + tmp.resolve("inside") + "'}\nupstream: {offline: true" + extraYaml + "}\n");
        List<String> args = new ArrayList<>(List.of("--config", config.toString()));
        args.addAll(List.of(arguments));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = run(new ImportCommand(capture(bytes), Map.of()), args.toArray(String[]::new));
        output = bytes.toString(StandardCharsets.UTF_8);
        return exit;
    }

    private List<Path> archivesInside() throws IOException {
        Path archives = tmp.resolve("inside/archives");
        if (!Files.exists(archives)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(archives)) {
            return files.filter(p -> p.toString().endsWith(".zip")).toList();
        }
    }

    @Test
    void aZstdBundleCarriesProvidersIntoAMirrorWithoutInternet() throws Exception {
        Path bundle = export("providers.tar.zst");
        assertThat(Files.readAllBytes(bundle)).startsWith(0x28, 0xB5, 0x2F, 0xFD);

        assertThat(importInside(bundle, "")).as(output).isZero();
        assertThat(output)
                .contains(
                        "1 provider(s), 1 provider version(s), 2 archive(s) for darwin_arm64, linux_amd64; 0 module(s), "
                                + "0 module version(s), verified and cached; new here: 2 archive(s), 0 module version(s), 1 "
                                + "version(s) added to version lists")
                .contains("example.test: signed by key(s) "
                        + fixture.origin().signingKey().signingKeyId());

        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            JsonNode index = JSON.readTree(inside.get("/providers/example.test/acme/carried/index.json"));
            List<String> versions = new ArrayList<>();
            index.get("versions").fieldNames().forEachRemaining(versions::add);
            assertThat(versions)
                    .as("only what the bundle carries, so the CLI picks a version that is there")
                    .containsExactly("1.1.0");
            JsonNode document = JSON.readTree(inside.get("/providers/example.test/acme/carried/1.1.0.json"));
            assertThat(document.at("/archives/linux_amd64/hashes").toString())
                    .contains("h1:")
                    .contains("zh:" + release.sha256("linux_amd64"));
            assertThat(inside.get(
                            "/providers/example.test/acme/carried/terraform-provider-carried_1.1.0_darwin_arm64.zip"))
                    .isEqualTo(release.archives().get("darwin_arm64"));
        }
    }

    @Test
    void aCacheWhoseEvidenceCannotBeReadStopsTheImportInsteadOfBeingOverwritten() throws Exception {
        Path bundle = export("providers.tar");
        // Not unreadable content (that is dropped and replaced) but a read that fails: the cache may hold verified
        // evidence the mirror cannot see right now, so nothing may replace it.
        Path evidence = tmp.resolve("inside/metadata/example.test/acme/carried/1.1.0/release.json");
        Files.createDirectories(evidence);

        assertThat(importInside(bundle, "")).as(output).isNotZero();
        assertThat(Files.isDirectory(evidence)).isTrue();
        assertThat(archivesInside()).isEmpty();
    }

    @Test
    void anArchiveAlteredInTheBundleIsRefusedWholeEvenWithAMatchingManifest() throws Exception {
        Path bundle = export("providers.tar");
        Path altered = rewrite(
                bundle, "altered.tar", (name, bytes) -> name.endsWith("linux_amd64.zip") ? flip(bytes) : bytes, false);
        assertThat(importInside(altered, "")).isOne();
        assertThat(output).contains("REFUSED").contains("was altered").contains("nothing of it was imported");
        assertThat(archivesInside()).isEmpty();

        Path consistent = rewrite(
                bundle,
                "consistent.tar",
                (name, bytes) -> name.endsWith("linux_amd64.zip") ? flip(bytes) : bytes,
                true);
        assertThat(importInside(consistent, "")).isOne();
        assertThat(output).contains("the archive does not match the verified hash");
        assertThat(archivesInside()).isEmpty();
    }

    @Test
    void forgedEvidenceIsRefused() throws Exception {
        Path bundle = export("providers.tar");
        TestPgpKey forger = TestPgpKey.generate("Forger <x@example.test>");
        // A forger rewrites SHA256SUMS to a hash of his own and signs it, but cannot sign with the origin's key.
        Path forged = rewrite(
                bundle,
                "forged.tar",
                (name, bytes) -> name.endsWith("release.json") ? forge(bytes, forger) : bytes,
                true);
        assertThat(importInside(forged, "")).isOne();
        assertThat(output).contains("REFUSED").contains("does not verify");
        assertThat(archivesInside()).isEmpty();

        // Consistent throughout: another archive, its hash in SHA256SUMS and in the download document, the
        // origin's genuine key listed. Only the signature over SHA256SUMS can tell: by a key the evidence does
        // not list, or the genuine signature of the original SHA256SUMS.
        byte[] fake = ProviderZips.provider("carried", "1.1.0", "linux_amd64", 777);
        String genuineKey = fixture.origin().signingKey().armoredPublicKey();
        Map<String, TestPgpKey> signers = new LinkedHashMap<>();
        signers.put("signed by the forger", forger);
        signers.put("with the original signature", null);
        for (Map.Entry<String, TestPgpKey> signer : signers.entrySet()) {
            Path consistent = rewrite(
                    bundle,
                    "consistent.tar",
                    (name, bytes) -> name.endsWith("release.json")
                            ? forgeWithKeyBlock(bytes, signer.getValue(), FakeOrigin.hex(fake), genuineKey)
                            : name.endsWith("linux_amd64.zip") ? fake : bytes,
                    true);
            assertThat(importInside(consistent, ""))
                    .as(signer.getKey() + ": " + output)
                    .isOne();
            assertThat(output)
                    .as(signer.getKey())
                    .contains("REFUSED")
                    .contains("example.test/acme/carried 1.1.0 does not verify")
                    .contains("signature")
                    .contains("nothing of it was imported");
            assertThat(archivesInside()).as(signer.getKey()).isEmpty();
        }
    }

    @Test
    void pinnedKeysApplyToImportsAndATruncatedBundleIsRefused() throws Exception {
        Path bundle = export("providers.tar");
        String stranger = TestPgpKey.generate("Stranger <s@example.test>").primaryFingerprint();
        assertThat(importInside(bundle, ", hosts: {example.test: {trustedKeys: [" + stranger + "]}}"))
                .isOne();
        assertThat(output).contains("pinned in upstream.hosts.example.test.trustedKeys");

        byte[] whole = Files.readAllBytes(bundle);
        Path truncated = Files.write(tmp.resolve("truncated.tar"), java.util.Arrays.copyOf(whole, whole.length / 2));
        assertThat(importInside(truncated, "")).as(output).isOne();
        assertThat(archivesInside()).isEmpty();

        assertThat(importInside(bundle, "")).as(output).isZero();
        assertThat(archivesInside()).hasSize(2);
    }

    @Test
    void aBundleThatDoesNotExistIsNamedAndNothingIsImported() throws Exception {
        Path genuine = export("genuine.tar");
        Path missing = tmp.resolve("elsewhere/providers.tar.zst");
        assertThat(importInside("", genuine.toString(), missing.toString()))
                .as(output)
                .isEqualTo(2);
        assertThat(output)
                .contains("import: " + missing.toAbsolutePath() + ": the file does not exist")
                .contains("nothing was imported");
        assertThat(archivesInside())
                .as("not even the bundle that exists: a usage error is found before any work")
                .isEmpty();

        assertThat(importInside("", tmp.toString())).as(output).isEqualTo(2);
        assertThat(output).contains(tmp.toAbsolutePath() + ": not a file");

        // As --help says: 2 when nothing was tried.
        assertThat(importHelp()).contains("2 when nothing was tried: a bundle that does not exist");
    }

    private static String importHelp() {
        return new CommandLine(new ImportCommand(System.out, Map.of()))
                .getUsageMessage()
                .replaceAll("\\s+", " ");
    }

    @Test
    void aTruncatedBundleIsRefusedWithExitCodeOneAndSaysSo() throws Exception {
        assertThat(importHelp()).contains("1 when one was refused").contains("so is a truncated one");
        for (String name : List.of("providers.tar", "providers.tar.zst")) {
            byte[] whole = Files.readAllBytes(export(name));
            for (int eighths = 1; eighths < 8; eighths++) {
                Path truncated = Files.write(
                        tmp.resolve(eighths + "-" + name), java.util.Arrays.copyOf(whole, whole.length * eighths / 8));
                assertThat(importInside(truncated, ""))
                        .as(name + " cut at " + eighths + "/8: " + output)
                        .isOne();
                assertThat(output)
                        .as(name + " cut at " + eighths + "/8")
                        .contains("import: REFUSED " + truncated + ": the bundle is truncated: the file ends ")
                        .contains("copy the whole file again")
                        .contains("nothing of it was imported");
                assertThat(archivesInside()).isEmpty();
            }
        }

        // What is not a tar, or not a zstd stream, is not called truncated, however short.
        byte[] noise = new byte[20_000];
        new java.util.Random(7).nextBytes(noise);
        byte[] zstdNoise = noise.clone();
        System.arraycopy(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD}, 0, zstdNoise, 0, 4);
        for (byte[] bytes : List.of(noise, zstdNoise)) {
            assertThat(importInside(Files.write(tmp.resolve("noise.tar"), bytes), ""))
                    .as(output)
                    .isOne();
            assertThat(output)
                    .contains("REFUSED")
                    .contains("cannot be read as a bundle")
                    .doesNotContain(".;")
                    .doesNotContain("truncated");
        }

        // Cut at an entry's boundary, the tar itself looks complete: its last entries are missing.
        Map<String, byte[]> entries = entries(export("genuine.tar"));
        String last = List.copyOf(entries.keySet()).get(entries.size() - 1);
        entries.remove(last);
        assertThat(importInside(writeTar("short.tar", entries), "")).as(output).isOne();
        // The manifest is one of the entries left, and not one it lists.
        assertThat(output)
                .contains("the bundle is truncated: the file ends after " + (entries.size() - 1) + " of the "
                        + entries.size() + " entries of its manifest, before " + last);
        assertThat(archivesInside()).isEmpty();
    }

    @Test
    void exportSaysHowLargeTheBundleItWroteIs() throws Exception {
        Path bundle = export("providers.tar.zst");
        assertThat(output)
                .contains("export: wrote " + bundle + " ("
                        + io.providermirror.server.config.DataSize.format(Files.size(bundle))
                        + "): 1 provider(s), 1 provider version(s), 2 archive(s) for darwin_arm64, linux_amd64; 0 "
                        + "module(s), 0 module version(s)");
        assertThat(Files.size(bundle)).as("a size worth a unit").isGreaterThan(1024);
    }

    @Test
    @SuppressWarnings("try") // the mirrors are held open only for their lock on the cache directory
    void aCacheDirectoryInUseIsExplainedForTheCommandThatHitIt() throws Exception {
        Path bundle = export("genuine.tar");
        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            assertThat(importInside(bundle, "")).as(output).isEqualTo(2);
            assertThat(output)
                    .contains("another provider-mirror process is using the cache directory")
                    .as("a running mirror takes imports through its operator API, with an operator token")
                    .contains("--operator-token-file FILE, or the environment variable PROVIDER_MIRROR_OPERATOR_TOKEN")
                    .contains("or stop the mirror first")
                    .doesNotContain("warm");
        }
        assertThat(archivesInside()).isEmpty();

        try (var outside = MirrorFixtures.start(tmp.resolve("outside"), fixture.origin())) {
            assertThat(exportTo(tmp.resolve("again.tar"))).as(output).isEqualTo(2);
            assertThat(output)
                    .contains("another provider-mirror process is using the cache directory")
                    .contains("stop the mirror while exporting, or export from a copy of its cache directory")
                    .doesNotContain("warm");
        }
        assertThat(tmp.resolve("again.tar")).doesNotExist();
    }

    @Test
    void exportAndImportPrintForPeopleTheLogShowsOnlyWarningsUnlessVerbose() throws Exception {
        logLines.start();
        root().addAppender(logLines);
        Path bundle = export("quiet.tar");
        assertThat(root().getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
        assertThat(logLines.list)
                .as("what export logged")
                .noneMatch(line -> line.getLevel().toInt() < ch.qos.logback.classic.Level.WARN.toInt());
        root().setLevel(rootLevel);
        assertThat(importInside(bundle, "")).as(output).isZero();
        assertThat(root().getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
        assertThat(logLines.list)
                .as("what import logged")
                .noneMatch(line -> line.getLevel().toInt() < ch.qos.logback.classic.Level.WARN.toInt());

        root().setLevel(rootLevel);
        deleteTree(tmp.resolve("inside"));
        deleteTree(tmp.resolve("outside"));
        export("verbose.tar", "--verbose");
        assertThat(logLines.list)
                .as("export --verbose logs what the mirror does")
                .anyMatch(line -> line.getLevel() == ch.qos.logback.classic.Level.INFO);
        logLines.list.clear();
        assertThat(importInside("", "--verbose", tmp.resolve("verbose.tar").toString()))
                .as(output)
                .isZero();
        assertThat(root().getLevel()).isEqualTo(rootLevel);
        assertThat(logLines.list)
                .as("import --verbose logs what the mirror does")
                .anyMatch(line -> line.getLevel() == ch.qos.logback.classic.Level.INFO);
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    @Test
    void aBundleClaimingAParentMirrorForAHostWithoutOneNeitherReplacesAVerifiedArchiveNorAddsAVersion()
            throws Exception {
        assertThat(importInside(export("genuine.tar"), "")).as(output).isZero();
        byte[] genuine = release.archives().get("linux_amd64");
        byte[] replacement = ProviderZips.provider("carried", "1.1.0", "linux_amd64", 777);
        byte[] fake = ProviderZips.provider("carried", "9.9.9", "linux_amd64", 777);
        // A parent's version document is only hashes: whoever writes it decides what verifies.
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(PROVIDER + "versions.json", versionList("1.1.0", "9.9.9"));
        entries.put(PROVIDER + "1.1.0/release.json", parentEvidence("1.1.0", replacement));
        entries.put(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip", replacement);
        entries.put(PROVIDER + "9.9.9/release.json", parentEvidence("9.9.9", fake));
        entries.put(PROVIDER + "9.9.9/terraform-provider-carried_9.9.9_linux_amd64.zip", fake);
        Path crafted = craft("crafted.tar", entries, List.of(carried("1.1.0"), carried("9.9.9")));

        assertThat(importInside(crafted, "")).as(output).isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried")
                .contains("upstream.hosts.example.test.mirrorUrl")
                .contains("nothing of it was imported");

        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            JsonNode index = JSON.readTree(inside.get("/providers/example.test/acme/carried/index.json"));
            assertThat(index.get("versions").has("9.9.9")).as(index.toString()).isFalse();
            assertThat(inside.get(
                            "/providers/example.test/acme/carried/terraform-provider-carried_1.1.0_linux_amd64.zip"))
                    .as("the verified archive, after a restart")
                    .isEqualTo(genuine);
            assertThat(JSON.readTree(inside.get("/providers/example.test/acme/carried/1.1.0.json"))
                            .at("/archives/linux_amd64/hashes")
                            .toString())
                    .contains("zh:" + release.sha256("linux_amd64"));
            assertThatThrownBy(() -> inside.get("/providers/example.test/acme/carried/9.9.9.json"))
                    .hasMessageContaining("answered 404");
        }
    }

    @Test
    void aGenuinelySignedReleaseCannotBeFiledUnderAnotherVersion() throws Exception {
        Path bundle = export("genuine.tar");
        Map<String, byte[]> genuine = entries(bundle);
        // 1.1.0's signed evidence and archives, relabelled as a 2.5.0 that the CLI would pick as the newest.
        Map<String, byte[]> relabelled = new LinkedHashMap<>();
        relabelled.put(PROVIDER + "versions.json", versionList("2.5.0"));
        relabelled.put(PROVIDER + "2.5.0/release.json", genuine.get(PROVIDER + "1.1.0/release.json"));
        relabelled.put(
                PROVIDER + "2.5.0/terraform-provider-carried_2.5.0_linux_amd64.zip",
                genuine.get(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip"));
        Path crafted = craft("relabelled.tar", relabelled, List.of(carried("2.5.0")));

        assertThat(importInside(crafted, "")).as(output).isOne();
        assertThat(output)
                .contains("REFUSED")
                .containsPattern(
                        "example.test/acme/carried 2.5.0 (\\w+): the signed "
                                + "file is terraform-provider-carried_1.1.0_\\1.zip, not terraform-provider-carried_2.5.0_\\1.zip");
        assertThat(archivesInside()).isEmpty();
    }

    @Test
    void aPinnedKeyInAnArmoredBlockWithAnotherKeyLetsOnlyThePinnedKeySign() throws Exception {
        Path bundle = export("genuine.tar");
        TestPgpKey forger = TestPgpKey.generate("Forger <x@example.test>");
        byte[] fake = ProviderZips.provider("carried", "1.1.0", "linux_amd64", 777);
        // The download documents list the genuine key and the forger's in one armored block; the forger signs.
        String block = TestPgpKey.armoredTogether(fixture.origin().signingKey(), forger);
        Path forged = rewrite(
                bundle,
                "forged.tar",
                (name, bytes) -> name.endsWith("release.json")
                        ? forgeWithKeyBlock(bytes, forger, FakeOrigin.hex(fake), block)
                        : name.endsWith("linux_amd64.zip") ? fake : bytes,
                true);

        String pinned = ", hosts: {example.test: {trustedKeys: ["
                + fixture.origin().signingKey().primaryFingerprint() + "]}}";
        assertThat(importInside(forged, pinned)).as(output).isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried 1.1.0")
                .contains("made by key " + forger.signingKeyId())
                .contains("upstream.hosts.example.test.trustedKeys");
        assertThat(archivesInside()).isEmpty();

        assertThat(importInside(bundle, pinned)).as(output).isZero();
        assertThat(output)
                .contains("example.test: signed by key(s) "
                        + fixture.origin().signingKey().signingKeyId());
    }

    @Test
    void importNeverReplacesACommittedArchiveWithAnotherOneThatAlsoVerifies() throws Exception {
        Path bundle = export("genuine.tar");
        assertThat(importInside(bundle, "")).as(output).isZero();
        // Without pinned keys a bundle may bring its own key; it cannot change what is cached.
        TestPgpKey other = TestPgpKey.generate("Other <o@example.test>");
        byte[] replacement = ProviderZips.provider("carried", "1.1.0", "linux_amd64", 777);
        String genuineSha = release.sha256("linux_amd64");
        String otherSha = FakeOrigin.hex(replacement);
        Path replacing = rewrite(
                bundle,
                "replacing.tar",
                (name, bytes) -> name.endsWith("release.json")
                        ? forgeWithKeyBlock(bytes, other, otherSha, other.armoredPublicKey())
                        : name.endsWith("linux_amd64.zip") ? replacement : bytes,
                true);

        assertThat(importInside(replacing, "")).as(output).isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried 1.1.0 linux_amd64")
                .contains("sha256 " + genuineSha)
                .contains("sha256 " + otherSha)
                .contains("nothing of it was imported");

        // Each of the two says which archive the version has: the committed archive, even without the release,
        Files.delete(tmp.resolve("inside/metadata/" + PROVIDER + "1.1.0/release.json"));
        assertThat(importInside(replacing, "")).as(output).isOne();
        assertThat(output)
                .contains("example.test/acme/carried 1.1.0 linux_amd64")
                .contains("already holds a verified archive with sha256 " + genuineSha)
                .contains("sha256 " + otherSha);
        assertThat(importInside(bundle, "")).as(output).isZero();
        // and the cached verified release, with the archive gone.
        Path linux =
                tmp.resolve("inside/archives/" + PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip");
        Files.delete(linux);
        Files.delete(linux.resolveSibling(linux.getFileName() + ".meta"));
        assertThat(importInside(replacing, "")).as(output).isOne();
        assertThat(output)
                .contains("example.test/acme/carried 1.1.0 linux_amd64")
                .contains("verified with sha256 " + genuineSha)
                .contains("sha256 " + otherSha);

        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            assertThat(inside.get("/providers/example.test/acme/carried/1.1.0.json"))
                    .asString()
                    .contains("zh:" + genuineSha)
                    .doesNotContain(otherSha);
            assertThat(inside.get(
                            "/providers/example.test/acme/carried/terraform-provider-carried_1.1.0_darwin_arm64.zip"))
                    .isEqualTo(release.archives().get("darwin_arm64"));
        }
    }

    @Test
    void aBundleCannotReplaceTheCachedEvidenceOfAVersionNotEvenForAPlatformWhoseArchiveIsNotCached() throws Exception {
        Path bundle = export("genuine.tar");
        Map<String, byte[]> genuine = entries(bundle);
        genuine.remove(BundleManifest.PATH);
        String darwinZip = PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_darwin_arm64.zip";
        genuine.remove(darwinZip);
        // The cache holds 1.1.0's verified release (both platforms) but only linux_amd64's archive.
        assertThat(importInside(craft("linux.tar", genuine, List.of(carried("1.1.0"))), ""))
                .as(output)
                .isZero();
        Path evidence = tmp.resolve("inside/metadata/" + PROVIDER + "1.1.0/release.json");
        byte[] cached = Files.readAllBytes(evidence);

        // Without pinned keys an attacker's bundle may bring its own key: it gives darwin_arm64 a hash of his.
        TestPgpKey attacker = TestPgpKey.generate("Attacker <a@example.test>");
        String attackerSha = FakeOrigin.hex(ProviderZips.provider("carried", "1.1.0", "darwin_arm64", 777));
        String genuineSha = release.sha256("darwin_arm64");
        Map<String, byte[]> attack = new LinkedHashMap<>(genuine);
        attack.put(
                PROVIDER + "1.1.0/release.json",
                forgeWithKeyBlock(
                        genuine.get(PROVIDER + "1.1.0/release.json"),
                        attacker,
                        "darwin_arm64",
                        attackerSha,
                        attacker.armoredPublicKey()));
        // Carrying no archive at all, no archive is checked.
        Map<String, byte[]> withoutArchives = new LinkedHashMap<>(attack);
        withoutArchives.keySet().removeIf(name -> name.endsWith(".zip"));
        assertThat(importInside(
                        craft(
                                "no-archives.tar",
                                withoutArchives,
                                List.of(new BundleManifest.Release("example.test/acme/carried", "1.1.0", List.of()))),
                        ""))
                .as(output)
                .isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried 1.1.0")
                .contains("lists no platform");
        // Carrying only the archive the cache holds already, genuine.
        assertThat(importInside(craft("linux-only.tar", attack, List.of(carried("1.1.0"))), ""))
                .as(output)
                .isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried 1.1.0 darwin_arm64")
                .contains("sha256 " + genuineSha)
                .contains("sha256 " + attackerSha);
        assertThat(Files.readAllBytes(evidence)).as("the cached evidence").isEqualTo(cached);

        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            assertThat(inside.get("/providers/example.test/acme/carried/1.1.0.json"))
                    .as("after a restart")
                    .asString()
                    .contains("zh:" + genuineSha)
                    .doesNotContain(attackerSha);
        }
    }

    @Test
    void evenWhenTheCachedEvidenceIsUnreadableABundleCannotContradictACommittedArchive() throws Exception {
        Path bundle = export("genuine.tar");
        Map<String, byte[]> genuine = entries(bundle);
        genuine.remove(BundleManifest.PATH);
        assertThat(importInside(bundle, "")).as(output).isZero();
        // The cached evidence no longer verifies (here: unreadable); both archives are committed.
        Files.writeString(tmp.resolve("inside/metadata/" + PROVIDER + "1.1.0/release.json"), "{}");

        TestPgpKey attacker = TestPgpKey.generate("Attacker <a@example.test>");
        String attackerSha = FakeOrigin.hex(ProviderZips.provider("carried", "1.1.0", "darwin_arm64", 777));
        Map<String, byte[]> attack = new LinkedHashMap<>(genuine);
        attack.put(
                PROVIDER + "1.1.0/release.json",
                forgeWithKeyBlock(
                        genuine.get(PROVIDER + "1.1.0/release.json"),
                        attacker,
                        "darwin_arm64",
                        attackerSha,
                        attacker.armoredPublicKey()));
        attack.remove(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_darwin_arm64.zip");

        // Carrying only the genuine linux_amd64 archive, its evidence still names darwin_arm64's committed archive.
        assertThat(importInside(craft("linux-only.tar", attack, List.of(carried("1.1.0"))), ""))
                .as(output)
                .isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried 1.1.0 darwin_arm64")
                .contains("sha256 " + release.sha256("darwin_arm64"))
                .contains(attackerSha);
    }

    @Test
    void aBundleForAHostTheMirrorWouldNeverServeImportsNothing() throws Exception {
        Path bundle = export("genuine.tar");
        // Only another port of example.test is configured: example.test itself is refused, so is its bundle.
        assertThat(importInside(bundle, ", hosts: {'example.test:8443': {discoveryUrl: 'https://127.0.0.1:1/'}}"))
                .as(output)
                .isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("would never serve it")
                .contains("another port of the configured host example.test:8443");
        assertThat(archivesInside()).isEmpty();
    }

    @Test
    void evidenceWithoutPackagesCannotEmptyACachedVersionEvenUnderPinnedKeys() throws Exception {
        String pinned = ", hosts: {example.test: {trustedKeys: ["
                + fixture.origin().signingKey().primaryFingerprint() + "]}}";
        Path bundle = export("genuine.tar");
        assertThat(importInside(bundle, pinned)).as(output).isZero();
        Path evidence = tmp.resolve("inside/metadata/" + PROVIDER + "1.1.0/release.json");
        byte[] cached = Files.readAllBytes(evidence);

        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(PROVIDER + "versions.json", versionList("1.1.0"));
        entries.put(
                PROVIDER + "1.1.0/release.json",
                "{\"downloads\":[],\"checksums\":[]}".getBytes(StandardCharsets.UTF_8));
        assertThat(importInside(
                        craft(
                                "empty.tar",
                                entries,
                                List.of(new BundleManifest.Release("example.test/acme/carried", "1.1.0", List.of()))),
                        pinned))
                .as(output)
                .isOne();
        assertThat(output).contains("REFUSED").contains("example.test/acme/carried 1.1.0");
        // A genuine subset of the release (one platform's signed evidence) changes nothing either, but still imports.
        Map<String, byte[]> subset = entries(bundle);
        subset.remove(BundleManifest.PATH);
        subset.remove(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_darwin_arm64.zip");
        ObjectNode linuxOnly = (ObjectNode) JSON.readTree(subset.get(PROVIDER + "1.1.0/release.json"));
        ArrayNode downloads = JSON.createArrayNode();
        linuxOnly.get("downloads").forEach(d -> {
            if (d.get("platform").asText().equals("linux_amd64")) {
                downloads.add(d);
            }
        });
        linuxOnly.set("downloads", downloads);
        subset.put(PROVIDER + "1.1.0/release.json", JSON.writeValueAsBytes(linuxOnly));
        assertThat(importInside(craft("subset.tar", subset, List.of(carried("1.1.0"))), pinned))
                .as(output)
                .isZero();
        assertThat(Files.readAllBytes(evidence)).as("the cached evidence").isEqualTo(cached);

        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            JsonNode document = JSON.readTree(inside.get("/providers/example.test/acme/carried/1.1.0.json"));
            assertThat(document.at("/archives/darwin_arm64/hashes").toString())
                    .as("after a restart")
                    .contains("zh:" + release.sha256("darwin_arm64"));
            assertThat(document.at("/archives/linux_amd64/hashes").toString())
                    .contains("zh:" + release.sha256("linux_amd64"));
        }
    }

    @Test
    void aHostTakenFromAParentMirrorImportsItsParentsHashesButNeverChangesACachedVersion() throws Exception {
        String fromParent = ", hosts: {example.test: {mirrorUrl: 'https://127.0.0.1:9/providers/'}}";
        byte[] genuine = release.archives().get("linux_amd64");
        String h1 =
                io.providermirror.upstream.verify.PackageHashes.h1(Files.write(tmp.resolve("genuine.zip"), genuine));
        // As a static tree written by `terraform providers mirror` publishes it: h1: only.
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(PROVIDER + "versions.json", versionList("1.1.0"));
        entries.put(PROVIDER + "1.1.0/release.json", parentEvidence("1.1.0", h1));
        entries.put(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip", genuine);
        assertThat(importInside(craft("parent.tar", entries, List.of(carried("1.1.0"))), fromParent))
                .as(output)
                .isZero();
        assertThat(output).contains("example.test: signed by key(s) parent-mirror");

        Path linux =
                tmp.resolve("inside/archives/" + PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip");
        Files.delete(linux);
        Files.delete(linux.resolveSibling(linux.getFileName() + ".meta"));
        byte[] replacement = ProviderZips.provider("carried", "1.1.0", "linux_amd64", 777);
        entries.put(PROVIDER + "1.1.0/release.json", parentEvidence("1.1.0", replacement));
        entries.put(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip", replacement);
        assertThat(importInside(craft("other.tar", entries, List.of(carried("1.1.0"))), fromParent))
                .as(output)
                .isOne();
        assertThat(output)
                .contains("example.test/acme/carried 1.1.0 linux_amd64")
                .contains("verified with " + h1)
                .contains("sha256 " + FakeOrigin.hex(replacement));
    }

    @Test
    void versionListsAreMergedOnlyForTheVersionsTheBundleCarriesAndVerified() throws Exception {
        Path bundle = export("genuine.tar");
        Path listing = rewrite(
                bundle,
                "listing.tar",
                (name, bytes) -> name.endsWith("versions.json") ? versionList("1.1.0", "5.0.0") : bytes,
                true);
        Map<String, byte[]> entries = entries(listing);
        entries.remove(BundleManifest.PATH);
        entries.put("example.test/acme/uncarried/versions.json", versionList("1.0.0"));
        BundleManifest manifest = JSON.readValue(entries(bundle).get(BundleManifest.PATH), BundleManifest.class);
        Path crafted = craft("crafted.tar", entries, manifest.releases());

        assertThat(importInside(crafted, "")).as(output).isZero();
        try (var inside = MirrorFixtures.startOffline(tmp.resolve("inside"), fixture.origin())) {
            List<String> versions = new ArrayList<>();
            JSON.readTree(inside.get("/providers/example.test/acme/carried/index.json"))
                    .get("versions")
                    .fieldNames()
                    .forEachRemaining(versions::add);
            assertThat(versions).containsExactly("1.1.0");
            assertThatThrownBy(() -> inside.get("/providers/example.test/acme/uncarried/index.json"))
                    .hasMessageContaining("answered 404");
        }
    }

    @Test
    void aBundleAddsVersionsToTheCachedListButNeverChangesTheOnesItLists() throws Exception {
        Path genuine = export("genuine.tar");
        assertThat(importInside(genuine, "")).as(output).isZero();
        Path cachedList;
        try (var files = Files.walk(tmp.resolve("inside"))) {
            cachedList = files.filter(p -> p.toString().contains("carried")
                            && p.getFileName().toString().equals("versions.json"))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] before = Files.readAllBytes(cachedList);
        assertThat(new String(before, StandardCharsets.UTF_8)).contains("darwin");
        // The same genuine releases, with a version list that drops darwin_arm64 from 1.1.0.
        Path narrowed = rewrite(
                genuine,
                "narrowed.tar",
                (name, bytes) -> name.endsWith("versions.json") ? versionList("1.1.0") : bytes,
                true);

        assertThat(importInside(narrowed, "")).as(output).isZero();
        assertThat(Files.readAllBytes(cachedList)).as("the cached version list").isEqualTo(before);
    }

    @Test
    void anEntryLargerThanTheManifestSaysIsRefusedBeforeItFillsTheDisk() throws Exception {
        byte[] huge = new byte[8 * 1024 * 1024];
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(PROVIDER + "versions.json", versionList("1.1.0"));
        entries.put(PROVIDER + "1.1.0/release.json", parentEvidence("1.1.0", huge));
        entries.put(PROVIDER + "1.1.0/terraform-provider-carried_1.1.0_linux_amd64.zip", huge);
        Path crafted = craft("huge.tar", entries, List.of(carried("1.1.0")));
        // The manifest says the archive is 1,000 bytes; the tar holds 8 MiB.
        Map<String, byte[]> rewritten = entries(crafted);
        ObjectNode manifest = (ObjectNode) JSON.readTree(rewritten.get(BundleManifest.PATH));
        for (JsonNode entry : manifest.get("entries")) {
            if (entry.get("path").asText().endsWith(".zip")) {
                ((ObjectNode) entry).put("size", 1000);
            }
        }
        rewritten.put(BundleManifest.PATH, JSON.writeValueAsBytes(manifest));
        Path oversized = writeTar("oversized.tar", rewritten);

        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        var config = new io.providermirror.server.config.ConfigLoader(Map.of())
                .loadText("cache: {directory: '" + tmp.resolve("inside") + "'}\nupstream: {offline: true}\n");
        try (var core = io.providermirror.server.app.MirrorWiring.open(
                config,
                java.time.Clock.systemUTC(),
                false,
                store -> countingWrites(store, written),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
            assertThatThrownBy(() -> new BundleImporter(core).importBundle(oversized))
                    .isInstanceOf(BundleImporter.RefusedException.class)
                    .hasMessageContaining("terraform-provider-carried_1.1.0_linux_amd64.zip")
                    .hasMessageContaining("the manifest says 1000");
        }
        assertThat(written.get()).as("bytes written to the store").isLessThanOrEqualTo(1001);
        assertThat(archivesInside()).isEmpty();
    }

    @Test
    void aBundleWhoseDocumentsTogetherExceedTheLimitIsRefusedBeforeTheyAreAllHeldInMemory() throws Exception {
        Path bundle = export("genuine.tar");
        long documents = entries(bundle).entrySet().stream()
                .filter(e -> !e.getKey().endsWith(".zip") && !e.getKey().equals(BundleManifest.PATH))
                .mapToLong(e -> e.getValue().length)
                .sum();
        var config = new io.providermirror.server.config.ConfigLoader(Map.of())
                .loadText("cache: {directory: '" + tmp.resolve("inside") + "'}\nupstream: {offline: true}\n");
        try (var core = io.providermirror.server.app.MirrorWiring.open(
                config,
                java.time.Clock.systemUTC(),
                false,
                java.util.function.UnaryOperator.identity(),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
            assertThatThrownBy(() -> new BundleImporter(core, documents - 1).importBundle(bundle))
                    .isInstanceOf(BundleImporter.RefusedException.class)
                    .hasMessageContaining("documents")
                    .hasMessageContaining("more than " + (documents - 1) + " bytes");
            assertThat(archivesInside()).isEmpty();
            assertThat(new BundleImporter(core, documents).importBundle(bundle).newArchives())
                    .isEqualTo(2);
        }
    }

    /** {@code store}, adding every byte written to its blobs to {@code written}. */
    private static io.providermirror.cache.BlobStore countingWrites(
            io.providermirror.cache.BlobStore store, java.util.concurrent.atomic.AtomicLong written) {
        return (io.providermirror.cache.BlobStore) java.lang.reflect.Proxy.newProxyInstance(
                BundleTest.class.getClassLoader(),
                new Class<?>[] {io.providermirror.cache.BlobStore.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, store, args);
                    if (!method.getName().equals("create")) {
                        return result;
                    }
                    return java.lang.reflect.Proxy.newProxyInstance(
                            BundleTest.class.getClassLoader(),
                            new Class<?>[] {io.providermirror.cache.BlobWrite.class},
                            (p, m, a) -> {
                                if (m.getName().equals("write")) {
                                    written.addAndGet(((java.nio.ByteBuffer) a[0]).remaining());
                                }
                                return invoke(m, result, a);
                            });
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void malformedPlatformsInAManifestOrInEvidenceAreRefusedWithAMessage() throws Exception {
        Path bundle = export("genuine.tar");
        Map<String, byte[]> entries = entries(bundle);
        entries.remove(BundleManifest.PATH);
        BundleManifest manifest = JSON.readValue(entries(bundle).get(BundleManifest.PATH), BundleManifest.class);
        BundleManifest.Release carried = manifest.releases().get(0);
        Path badManifest = craft(
                "bad-manifest.tar",
                entries,
                List.of(new BundleManifest.Release(
                        carried.provider(), carried.version(), List.of("linux_amd64", "Not A Platform"))));
        assertThat(importInside(badManifest, "")).as(output).isOne();
        assertThat(output).contains("REFUSED").contains("Not A Platform");

        ObjectNode evidence = (ObjectNode) JSON.readTree(entries.get(PROVIDER + "1.1.0/release.json"));
        ((ObjectNode) evidence.get("downloads").get(0)).put("platform", "Not A Platform");
        entries.put(PROVIDER + "1.1.0/release.json", JSON.writeValueAsBytes(evidence));
        assertThat(importInside(craft("bad-evidence.tar", entries, manifest.releases()), ""))
                .as(output)
                .isOne();
        assertThat(output)
                .contains("REFUSED")
                .contains("example.test/acme/carried 1.1.0 does not verify")
                .contains("Not A Platform");
        assertThat(archivesInside()).isEmpty();
    }

    private static final String PROVIDER = "example.test/acme/carried/";

    /** Every entry of a bundle, by name. */
    private static Map<String, byte[]> entries(Path bundle) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(bundle);
                TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                entries.put(entry.getName(), tar.readAllBytes());
            }
        }
        return entries;
    }

    private static BundleManifest.Release carried(String version) {
        return new BundleManifest.Release("example.test/acme/carried", version, List.of("linux_amd64"));
    }

    /** A version list in the registry's form, listing {@code versions} for linux_amd64. */
    private static byte[] versionList(String... versions) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("versions");
        for (String version : versions) {
            list.addObject()
                    .put("version", version)
                    .putArray("platforms")
                    .addObject()
                    .put("os", "linux")
                    .put("arch", "amd64");
        }
        return root.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Release evidence in the form a parent network mirror's version document is kept in, vouching for {@code zip}. */
    private static byte[] parentEvidence(String version, byte[] zip) throws IOException {
        return parentEvidence(version, "zh:" + sha256(zip));
    }

    /** As {@link #parentEvidence(String, byte[])}, with the one hash the parent publishes. */
    private static byte[] parentEvidence(String version, String hash) throws IOException {
        String name = "terraform-provider-carried_" + version + "_linux_amd64.zip";
        ObjectNode document = JSON.createObjectNode();
        document.putObject("archives")
                .putObject("linux_amd64")
                .put("url", name)
                .putArray("hashes")
                .add(hash);
        ObjectNode evidence = JSON.createObjectNode();
        evidence.putArray("downloads");
        evidence.putArray("checksums");
        evidence.putObject("parentMirror")
                .put("url", "https://127.0.0.1:9/providers/example.test/acme/carried/" + version + ".json")
                .put("document", JSON.writeValueAsBytes(document));
        return JSON.writeValueAsBytes(evidence);
    }

    /** A bundle of {@code entries} with a manifest that agrees with them, as anyone can write one. */
    private Path craft(String name, Map<String, byte[]> entries, List<BundleManifest.Release> releases)
            throws IOException {
        List<BundleManifest.Entry> listed = new ArrayList<>();
        entries.forEach((path, bytes) -> listed.add(new BundleManifest.Entry(path, bytes.length, sha256(bytes))));
        Map<String, byte[]> all = new LinkedHashMap<>();
        all.put(
                BundleManifest.PATH,
                JSON.writeValueAsBytes(new BundleManifest(
                        BundleManifest.FORMAT, "2026-11-23T00:00:00Z", "a test", listed, releases, null)));
        all.putAll(entries);
        return writeTar(name, all);
    }

    private static byte[] flip(byte[] bytes) {
        return BundleRewrite.flip(bytes);
    }

    /** release.json with SHA256SUMS saying another hash for linux_amd64, signed by {@code forger}. */
    private static byte[] forge(byte[] evidence, TestPgpKey forger) {
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(evidence);
            for (JsonNode checksums : (ArrayNode) root.get("checksums")) {
                String sums = new String(checksums.get("sums").binaryValue(), StandardCharsets.UTF_8)
                        .replaceFirst("[0-9a-f]{64}(  \\S+linux_amd64\\.zip)", "f".repeat(64) + "$1");
                byte[] bytes = sums.getBytes(StandardCharsets.UTF_8);
                ((ObjectNode) checksums).put("sums", bytes).put("signature", forger.signDetached(bytes));
            }
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * release.json with linux_amd64's hash replaced by {@code sha256} in SHA256SUMS (signed by {@code forger}, or
     * keeping the original signature when null) and its download document, and every download document listing
     * {@code keys} as its one armored block.
     */
    private static byte[] forgeWithKeyBlock(byte[] evidence, TestPgpKey forger, String sha256, String keys) {
        return forgeWithKeyBlock(evidence, forger, "linux_amd64", sha256, keys);
    }

    /** As {@link #forgeWithKeyBlock(byte[], TestPgpKey, String, String)}, for {@code platform}'s hash. */
    private static byte[] forgeWithKeyBlock(
            byte[] evidence, TestPgpKey forger, String platform, String sha256, String keys) {
        try {
            ObjectNode root = (ObjectNode) JSON.readTree(evidence);
            for (JsonNode checksums : (ArrayNode) root.get("checksums")) {
                String sums = new String(checksums.get("sums").binaryValue(), StandardCharsets.UTF_8)
                        .replaceFirst("[0-9a-f]{64}(  \\S+" + platform + "\\.zip)", sha256 + "$1");
                byte[] bytes = sums.getBytes(StandardCharsets.UTF_8);
                ((ObjectNode) checksums).put("sums", bytes);
                if (forger != null) {
                    ((ObjectNode) checksums).put("signature", forger.signDetached(bytes));
                }
            }
            for (JsonNode download : (ArrayNode) root.get("downloads")) {
                ObjectNode document =
                        (ObjectNode) JSON.readTree(download.get("document").binaryValue());
                if (download.get("platform").asText().equals(platform)) {
                    document.put("shasum", sha256);
                }
                ((ObjectNode) document.at("/signing_keys/gpg_public_keys/0")).put("ascii_armor", keys);
                ((ObjectNode) download).put("document", JSON.writeValueAsBytes(document));
            }
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rewrites a bundle's entries; with {@code updateManifest}, its manifest then agrees with the changes. */
    private Path rewrite(Path bundle, String name, BiFunction<String, byte[], byte[]> change, boolean updateManifest)
            throws IOException {
        return BundleRewrite.rewrite(bundle, tmp.resolve(name), change, updateManifest);
    }

    private Path writeTar(String name, Map<String, byte[]> entries) throws IOException {
        return BundleRewrite.writeTar(tmp.resolve(name), entries);
    }

    private static String sha256(byte[] bytes) {
        return BundleRewrite.sha256(bytes);
    }
}
