package io.providermirror.server.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.config.AuthConfig;
import io.providermirror.testkit.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client tokens and signed archive URLs alone: which tokens are accepted, what a signed URL is valid for (the one
 * archive, until it expires), where the signing key comes from, and what a wrong configuration says.
 */
final class MirrorAuthTest {

    private static final String TOKEN = "s3cret-token";
    private static final ProviderAddress AWS = ProviderAddress.parse("registry.terraform.io/hashicorp/aws");
    private static final ProviderVersion V1 = ProviderVersion.parse("1.0.0").orElseThrow();
    private static final ProviderVersion V2 = ProviderVersion.parse("2.0.0").orElseThrow();
    private static final Platform LINUX = Platform.parse("linux_amd64");
    private static final ModuleAddress VPC = ModuleAddress.parse("registry.terraform.io/acme/vpc/aws");

    @TempDir
    Path cache;

    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));

    private MirrorAuth auth(String... tokens) throws IOException {
        return MirrorAuth.load(
                new AuthConfig(Stream.of(tokens).map(MirrorAuth::hash).toList(), null, Duration.ofMinutes(10), null),
                cache,
                clock);
    }

    @Test
    void withoutTokensEverythingIsOpen() throws IOException {
        MirrorAuth open = MirrorAuth.load(new AuthConfig(List.of(), null, null, null), cache, clock);

        assertThat(open).isSameAs(MirrorAuth.OPEN);
        assertThat(open.enabled()).isFalse();
        assertThat(open.accepts(null)).isTrue();
        assertThat(open.checkArchive(AWS, V1, LINUX, Optional.empty(), Optional.empty(), Optional.empty(), null))
                .isEqualTo(new MirrorAuth.ArchiveVerdict(true, null));
        assertThat(Files.exists(cache.resolve("auth"))).as("no key is made").isFalse();
    }

    @Test
    void aBearerTokenIsAcceptedOnlyWhenItsHashIsConfigured() throws IOException {
        MirrorAuth auth = auth("other-token", TOKEN);

        assertThat(auth.enabled()).isTrue();
        assertThat(auth.accepts("Bearer " + TOKEN)).isTrue();
        assertThat(auth.accepts("bearer  " + TOKEN + " "))
                .as("scheme in any case, blanks around")
                .isTrue();
        assertThat(auth.accepts("Bearer other-token")).isTrue();
        assertThat(auth.accepts("Bearer " + TOKEN + "x")).isFalse();
        assertThat(auth.accepts("Basic " + TOKEN)).isFalse();
        assertThat(auth.accepts(TOKEN)).isFalse();
        assertThat(auth.accepts(null)).isFalse();
        assertThat(auth.accepts("Bearer " + MirrorAuth.hash(TOKEN)))
                .as("the hash is no token")
                .isFalse();
    }

    @Test
    void aTokenHashIsSha256OfTheStrippedToken() {
        assertThat(MirrorAuth.hash(" abc\n"))
                .isEqualTo("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void aSignedArchiveUrlOpensThatArchiveUntilItExpires() throws IOException {
        MirrorAuth auth = auth(TOKEN);
        Map<String, String> query = query(auth.archiveQuery(AWS, V1, LINUX, "anonymous"));

        assertThat(query.get("expires"))
                .isEqualTo(String.valueOf(
                        clock.instant().plus(Duration.ofMinutes(10)).getEpochSecond()));
        assertThat(check(auth, AWS, V1, LINUX, query)).isEqualTo(new MirrorAuth.ArchiveVerdict(true, null));

        clock.advance(Duration.ofMinutes(10));
        assertThat(check(auth, AWS, V1, LINUX, query).allowed())
                .as("valid through its last second")
                .isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(check(auth, AWS, V1, LINUX, query))
                .isEqualTo(new MirrorAuth.ArchiveVerdict(
                        false,
                        "this archive URL expired: signed archive URLs are valid for 10 minutes; ask for the"
                                + " version document again (run init again)"));
        assertThat(auth.checkArchive(
                                AWS,
                                V1,
                                LINUX,
                                Optional.of(query.get("expires")),
                                Optional.of(query.get("signature")),
                                Optional.empty(),
                                "Bearer " + TOKEN)
                        .allowed())
                .as("an accepted token opens it whatever the URL")
                .isTrue();
    }

    @Test
    void aSignatureFitsOnlyTheArchiveAndExpiryItWasMadeFor() throws IOException {
        MirrorAuth auth = auth(TOKEN);
        Map<String, String> query = query(auth.archiveQuery(AWS, V1, LINUX, "anonymous"));
        MirrorAuth.ArchiveVerdict mismatch = new MirrorAuth.ArchiveVerdict(
                false, "this archive URL is not valid: its signature does not match this archive");

        assertThat(check(auth, AWS, V2, LINUX, query)).isEqualTo(mismatch);
        assertThat(check(auth, AWS, V1, Platform.parse("darwin_arm64"), query)).isEqualTo(mismatch);
        assertThat(check(auth, ProviderAddress.parse("registry.terraform.io/hashicorp/azurerm"), V1, LINUX, query))
                .isEqualTo(mismatch);
        long later = Long.parseLong(query.get("expires")) + 3600;
        assertThat(auth.checkArchive(
                        AWS,
                        V1,
                        LINUX,
                        Optional.of(String.valueOf(later)),
                        Optional.of(query.get("signature")),
                        Optional.empty(),
                        null))
                .as("an expiry moved later")
                .isEqualTo(mismatch);
        assertThat(auth.checkArchive(
                        AWS,
                        V1,
                        LINUX,
                        Optional.of("soon"),
                        Optional.of(query.get("signature")),
                        Optional.empty(),
                        "Bearer wrong"))
                .isEqualTo(new MirrorAuth.ArchiveVerdict(
                        false, "this archive URL is not valid: its expiry is not a number"));
    }

    @Test
    void anUnsignedArchiveUrlIsRefusedSayingWhereSignedOnesComeFrom() throws IOException {
        MirrorAuth auth = auth(TOKEN);
        Map<String, String> query = query(auth.archiveQuery(AWS, V1, LINUX, "anonymous"));

        assertThat(auth.checkArchive(
                        AWS, V1, LINUX, Optional.empty(), Optional.of(query.get("signature")), Optional.empty(), null))
                .isEqualTo(new MirrorAuth.ArchiveVerdict(
                        false,
                        "archive URLs of this mirror are signed: take them from a version document"
                                + " (<version>.json), as the CLI does"));
        assertThat(auth.checkRegistryFile(
                                AWS,
                                V1,
                                LINUX,
                                Optional.of(query.get("expires")),
                                Optional.empty(),
                                Optional.empty(),
                                null)
                        .reason())
                .isEqualTo("archive URLs of this mirror are signed: take them from a download document (providers.v1"
                        + " .../download/<os>/<arch>), as the CLI does");
        assertThat(auth.checkModuleArchive(VPC, V1, Optional.empty(), Optional.empty(), Optional.empty(), "Bearer nope")
                        .reason())
                .isEqualTo("archive URLs of this mirror are signed: take them from a module's download answer, as"
                        + " the CLI does");
    }

    @Test
    void theSignedQueryOfAPackageOpensItsRegistryFilesToo() throws IOException {
        MirrorAuth auth = auth(TOKEN);
        Map<String, String> query = query(auth.archiveQuery(AWS, V1, LINUX, "anonymous"));

        assertThat(auth.checkRegistryFile(
                                AWS,
                                V1,
                                LINUX,
                                Optional.of(query.get("expires")),
                                Optional.of(query.get("signature")),
                                Optional.empty(),
                                null)
                        .allowed())
                .isTrue();
        assertThat(auth.checkRegistryFile(
                                AWS,
                                V2,
                                LINUX,
                                Optional.of(query.get("expires")),
                                Optional.of(query.get("signature")),
                                Optional.empty(),
                                null)
                        .allowed())
                .isFalse();
    }

    @Test
    void aModuleArchiveUrlIsSignedForOneVersionOfOneModuleAndNeverFitsAProvider() throws IOException {
        MirrorAuth auth = auth(TOKEN);
        Map<String, String> query = query(auth.moduleArchiveQuery(VPC, V1, "anonymous"));

        assertThat(checkModule(auth, VPC, V1, query).allowed()).isTrue();
        assertThat(checkModule(auth, VPC, V2, query).allowed())
                .as("another version")
                .isFalse();
        assertThat(checkModule(auth, ModuleAddress.parse("registry.terraform.io/acme/vpc/google"), V1, query)
                        .allowed())
                .isFalse();
        Map<String, String> provider = query(auth.archiveQuery(AWS, V1, LINUX, "anonymous"));
        assertThat(checkModule(auth, VPC, V1, provider).allowed()).isFalse();
        clock.advance(Duration.ofMinutes(11));
        assertThat(checkModule(auth, VPC, V1, query).reason()).startsWith("this archive URL expired");
    }

    @Test
    void theSigningKeyIsMadeOnceInTheCacheReadableByItsOwnerOnlyAndKeptAcrossRestarts() throws IOException {
        MirrorAuth first = auth(TOKEN);
        Path key = cache.resolve("auth").resolve("url-signing.key");

        assertThat(Files.size(key)).isEqualTo(32);
        assertThat(Files.readAllBytes(key)).as("random, not zeros").isNotEqualTo(new byte[32]);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
                .isEqualTo("rw-------");
        try (Stream<Path> files = Files.list(key.getParent())) {
            assertThat(files.map(path -> path.getFileName().toString())).containsExactly("url-signing.key");
        }
        Map<String, String> query = query(first.archiveQuery(AWS, V1, LINUX, "anonymous"));
        assertThat(check(auth(TOKEN), AWS, V1, LINUX, query).allowed())
                .as("the next start reads the same key")
                .isTrue();

        Path otherCache = Files.createDirectory(cache.resolve("other"));
        MirrorAuth elsewhere =
                MirrorAuth.load(new AuthConfig(List.of(MirrorAuth.hash(TOKEN)), null, null, null), otherCache, clock);
        assertThat(check(elsewhere, AWS, V1, LINUX, query).allowed())
                .as("another key refuses the URL")
                .isFalse();
    }

    @Test
    void aConfiguredSigningKeyIsUsedAndMustExistWithAtLeast32Bytes() throws IOException {
        Path keyFile = cache.resolve("shared.key");
        Files.write(keyFile, new byte[32]);
        AuthConfig config = new AuthConfig(List.of(MirrorAuth.hash(TOKEN)), null, null, keyFile);
        MirrorAuth one = MirrorAuth.load(config, cache, clock);
        Map<String, String> query = query(one.archiveQuery(AWS, V1, LINUX, "anonymous"));
        assertThat(check(
                                MirrorAuth.load(config, Files.createDirectory(cache.resolve("b")), clock),
                                AWS,
                                V1,
                                LINUX,
                                query)
                        .allowed())
                .as("two instances with one key accept each other's URLs")
                .isTrue();
        assertThat(Files.exists(cache.resolve("auth"))).isFalse();

        Files.write(keyFile, new byte[31]);
        assertThatThrownBy(() -> MirrorAuth.load(config, cache, clock))
                .isInstanceOf(IOException.class)
                .hasMessage("the archive URL signing key " + keyFile + " is 31 bytes (expected: at least 32)");

        Path missing = cache.resolve("missing.key");
        assertThatThrownBy(() -> MirrorAuth.load(
                        new AuthConfig(List.of(MirrorAuth.hash(TOKEN)), null, null, missing), cache, clock))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("auth.urlSigningKeyFile " + missing + " does not exist (expected: 32 or more");
        assertThat(Files.exists(missing)).isFalse();
    }

    @Test
    void aTokensFileHoldsHashesOneALineWithCommentsAndBlankLines() throws IOException {
        Path tokens = cache.resolve("tokens");
        Files.writeString(
                tokens, "# clients\n\n  " + MirrorAuth.hash("from-file") + "  \n#" + MirrorAuth.hash(TOKEN) + "\n");
        MirrorAuth auth = MirrorAuth.load(new AuthConfig(List.of(), tokens, null, null), cache, clock);

        assertThat(auth.enabled()).isTrue();
        assertThat(auth.accepts("Bearer from-file")).isTrue();
        assertThat(auth.accepts("Bearer " + TOKEN)).as("commented out").isFalse();

        MirrorAuth both =
                MirrorAuth.load(new AuthConfig(List.of(MirrorAuth.hash(TOKEN)), tokens, null, null), cache, clock);
        assertThat(both.accepts("Bearer from-file")).isTrue();
        assertThat(both.accepts("Bearer " + TOKEN)).isTrue();
    }

    @Test
    void aTokensFileLineThatIsNoHashIsRefusedNamingItsLine() throws IOException {
        Path tokens = cache.resolve("tokens");
        Files.writeString(tokens, MirrorAuth.hash("a") + "\n# fine\nplain-token\n", StandardCharsets.UTF_8);

        assertThatThrownBy(() -> MirrorAuth.load(new AuthConfig(List.of(), tokens, null, null), cache, clock))
                .isInstanceOf(IOException.class)
                .hasMessage("auth.tokensFile " + tokens + ", line 3: not a token hash line (expected: [<name>] "
                        + "sha256:<64 hex digits> [hosts=<glob>,...] [namespaces=<glob>,...]; the file holds hashes of "
                        + "tokens, never tokens)");
        Path missing = cache.resolve("no-such-file");
        assertThatThrownBy(() -> MirrorAuth.load(new AuthConfig(List.of(), missing, null, null), cache, clock))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("auth.tokensFile: cannot read " + missing + ": ");
    }

    @Test
    void anEmptyTokensFileLeavesAccessControlOnWithNoTokenAccepted() throws IOException {
        Path tokens = Files.writeString(cache.resolve("tokens"), "# nobody yet\n");
        MirrorAuth auth = MirrorAuth.load(new AuthConfig(List.of(), tokens, null, null), cache, clock);

        assertThat(auth.enabled()).isTrue();
        assertThat(auth.accepts("Bearer anything")).isFalse();
        assertThat(auth.accepts("Bearer ")).isFalse();
    }

    @Test
    void aUrlSignedForAClientNamesItAndOpensOnlyUnderThatName() throws IOException {
        MirrorAuth auth = auth(TOKEN);
        String name = auth.clients().get(0).name();
        Map<String, String> query = query(auth.archiveQuery(AWS, V1, LINUX, name));

        assertThat(query).containsEntry("client", name);
        assertThat(check(auth, AWS, V1, LINUX, query).allowed()).isTrue();
        Map<String, String> renamed = new java.util.HashMap<>(query);
        renamed.put("client", "someone-else");
        assertThat(check(auth, AWS, V1, LINUX, renamed).allowed())
                .as("another name")
                .isFalse();
        Map<String, String> unnamed = new java.util.HashMap<>(query);
        unnamed.remove("client");
        assertThat(check(auth, AWS, V1, LINUX, unnamed).allowed())
                .as("the name left out")
                .isFalse();
        assertThat(auth.signedClient(Optional.of(name)).map(Client::name)).contains(name);
        assertThat(auth.signedClient(Optional.of("no-longer-configured"))).isEmpty();
        assertThat(auth.signedClient(Optional.empty())).isEmpty();

        assertThat(query(auth.archiveQuery(AWS, V1, LINUX, Client.ANONYMOUS.name())))
                .as("an anonymous request's URL names no client")
                .doesNotContainKey("client");
        Map<String, String> module = query(auth.moduleArchiveQuery(VPC, V1, name));
        assertThat(module).containsEntry("client", name);
        assertThat(checkModule(auth, VPC, V1, module).allowed()).isTrue();
        module.put("client", "someone-else");
        assertThat(checkModule(auth, VPC, V1, module).allowed()).isFalse();
    }

    private static MirrorAuth.ArchiveVerdict check(
            MirrorAuth auth,
            ProviderAddress address,
            ProviderVersion version,
            Platform platform,
            Map<String, String> q) {
        return auth.checkArchive(
                address,
                version,
                platform,
                Optional.of(q.get("expires")),
                Optional.of(q.get("signature")),
                Optional.ofNullable(q.get("client")),
                null);
    }

    private static MirrorAuth.ArchiveVerdict checkModule(
            MirrorAuth auth, ModuleAddress address, ProviderVersion version, Map<String, String> q) {
        return auth.checkModuleArchive(
                address,
                version,
                Optional.of(q.get("expires")),
                Optional.of(q.get("signature")),
                Optional.ofNullable(q.get("client")),
                null);
    }

    private static Map<String, String> query(String query) {
        return Stream.of(query.split("&"))
                .map(pair -> pair.split("=", 2))
                .collect(Collectors.toMap(pair -> pair[0], pair -> pair[1]));
    }
}
