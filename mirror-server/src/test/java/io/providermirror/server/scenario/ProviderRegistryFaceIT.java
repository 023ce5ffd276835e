package io.providermirror.server.scenario;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.TerraformCli;
import io.providermirror.testkit.TerraformExtension;
import io.providermirror.testkit.TerraformWorkspace;
import io.providermirror.testkit.TestCertificates;
import io.providermirror.testkit.TestPgpKey;
import io.providermirror.upstream.verify.PackageHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code terraform} CLI installs providers through the mirror's providers.v1 face, routed there by a
 * {@code host} block with the default {@code direct} installation: the lock file it writes is the one a direct
 * install from the origin writes ({@code zh:} for every platform the origin signed, and {@code h1:}), the CLI
 * checks the origin's signature itself, and neither an altered cache file nor a forged signature gets through.
 */
final class ProviderRegistryFaceIT {

    private static final List<String> PLATFORMS = List.of("linux_amd64", "darwin_arm64", "windows_amd64");

    @RegisterExtension
    static final TerraformExtension endToEnd = new TerraformExtension();

    @TempDir
    static Path tmp;

    private static TerraformMirror run;
    private static TerraformCli direct;
    private static TerraformCli throughMirror;

    @BeforeAll
    static void start() throws Exception {
        run = TerraformMirror.start(endToEnd, tmp).orElse(null);
        if (run == null) {
            return;
        }
        // A direct install from the origin, which the CLI trusts with the origin's CA only.
        direct = cli(
                "direct",
                run.origin().discoveryUrl().resolve("/v1/providers/").toString(),
                run.origin().caCertificate());
        throughMirror = faceCli("mirror", run.mirror());
    }

    /** A CLI whose {@code host} block routes {@code example.test}'s providers.v1 to {@code mirror}'s face. */
    private static TerraformCli faceCli(String name, MirrorFixture target) throws Exception {
        return cli(
                name,
                "https://localhost:" + target.mirror.port() + "/registry/" + MirrorFixture.HOST + "/providers.v1/",
                target.mirror.generatedCaFile().orElseThrow());
    }

    private static TerraformCli cli(String name, String providersV1, Path ca) throws Exception {
        Path cliConfig = Files.writeString(
                tmp.resolve(name + ".rc"),
                TerraformWorkspace.hostService(MirrorFixture.HOST, "providers.v1", providersV1));
        return TerraformCli.using(run.terraform(), Files.createDirectories(tmp.resolve("home-" + name)), cliConfig, ca);
    }

    private static Path configuration(String name, String type, String version) throws Exception {
        return TerraformWorkspace.write(
                tmp.resolve(name),
                Map.of("main.tf", TerraformWorkspace.requiredProvider(type, "example.test/acme/" + type, version)));
    }

    private static String h1(FakeOrigin.Release release, String platform) throws Exception {
        Path zip = Files.write(
                Files.createTempFile(tmp, platform, ".zip"), release.archives().get(platform));
        return PackageHashes.h1(zip);
    }

    private static TerraformCli.Result init(TerraformCli cli, Path directory) throws Exception {
        return cli.run(directory, "init", "-input=false", "-no-color");
    }

    @Test
    void theLockFileIsTheOneADirectInstallWritesAndTheSecondInitNeedsNoOrigin() throws Exception {
        FakeOrigin.Release release =
                run.origin().publish("acme", "complete", "1.2.0", PLATFORMS.toArray(String[]::new));

        TerraformCli.Result fromOrigin = init(direct, configuration("direct", "complete", "1.2.0"));
        assertThat(fromOrigin.exitCode()).as(fromOrigin.output()).isZero();
        Path first = configuration("face-first", "complete", "1.2.0");
        TerraformCli.Result viaFace = init(throughMirror, first);
        assertThat(viaFace.exitCode()).as(viaFace.output()).isZero();

        Set<String> expected = new TreeSet<>();
        for (String platform : PLATFORMS) {
            expected.add("zh:" + release.sha256(platform));
        }
        expected.add(h1(release, "linux_amd64"));
        assertThat(TerraformWorkspace.lockedHashes(first))
                .as("zh: for every platform the origin signed, and the h1: of the installed package")
                .isEqualTo(expected)
                .isEqualTo(TerraformWorkspace.lockedHashes(tmp.resolve("direct")));
        assertThat(viaFace.output())
                .doesNotContain("Incomplete lock file information")
                .as("the CLI checked the origin's signature and names its (primary) key, as on a direct install")
                .contains("Installed example.test/acme/complete v1.2.0 (self-signed, key ID "
                        + run.origin().signingKey().primaryFingerprint().substring(24) + ")");
        assertThat(fromOrigin.output())
                .contains("(self-signed, key ID "
                        + run.origin().signingKey().primaryFingerprint().substring(24) + ")");
        assertThat(run.origin().archiveDownloads(release, "linux_amd64"))
                .as("once for the direct install, once for the mirror")
                .isEqualTo(2);

        int originRequests = run.origin().requestsMatching(".*");
        Path second = configuration("face-second", "complete", "1.2.0");
        TerraformCli.Result again = init(throughMirror, second);
        assertThat(again.exitCode()).as(again.output()).isZero();
        assertThat(TerraformWorkspace.lockedHashes(second)).isEqualTo(expected);
        assertThat(run.origin().requestsMatching(".*"))
                .as("the second init is answered from the mirror's cache")
                .isEqualTo(originRequests);

        // Plain `terraform providers lock` asks the host's providers.v1, which the host block routes to the mirror.
        TerraformCli.Result lock = throughMirror.run(
                second,
                "providers",
                "lock",
                "-no-color",
                "-platform=linux_amd64",
                "-platform=darwin_arm64",
                "-platform=windows_amd64");
        assertThat(lock.exitCode()).as(lock.output()).isZero();
        for (String platform : PLATFORMS) {
            assertThat(TerraformWorkspace.lockedHashes(second)).as(platform).contains(h1(release, platform));
        }
    }

    @Test
    void aSignatureForgedBetweenTheMirrorAndTheCliIsRefusedByTheCli() throws Exception {
        FakeOrigin.Release release = run.origin().publish("acme", "forgedsig", "1.0.0", "linux_amd64");
        // Something between the CLI and the mirror (or a mirror gone bad) swaps the signature for one made with a
        // key the origin did not list: only the CLI's own check stands in the way.
        byte[] forged = TestPgpKey.generate("Mallory <m@example.test>").signDetached(release.sha256Sums());
        TestCertificates certificates = TestCertificates.create(tmp.resolve("interposer"), "interposer");
        WireMockServer interposer = new WireMockServer(WireMockConfiguration.options()
                .bindAddress("127.0.0.1")
                .httpDisabled(true)
                .dynamicHttpsPort()
                .keystorePath(certificates.keyStore().toString())
                .keystorePassword(certificates.password())
                .keyManagerPassword(certificates.password())
                .keystoreType("PKCS12")
                .trustAllProxyTargets(true));
        interposer.start();
        try {
            interposer.stubFor(any(anyUrl())
                    .atPriority(10)
                    .willReturn(aResponse()
                            .proxiedFrom(
                                    "https://localhost:" + run.mirror().mirror.port())));
            interposer.stubFor(get(urlPathMatching(".*/SHA256SUMS\\.sig"))
                    .atPriority(1)
                    .willReturn(aResponse().withBody(forged)));
            TerraformCli cli = cli(
                    "interposed",
                    "https://localhost:" + interposer.httpsPort() + "/registry/" + MirrorFixture.HOST
                            + "/providers.v1/",
                    certificates.caPem());

            Path directory = configuration("interposed", "forgedsig", "1.0.0");
            TerraformCli.Result init = init(cli, directory);

            assertThat(init.exitCode()).as(init.output()).isNotZero();
            assertThat(init.output()).containsIgnoringCase("signature");
            assertThat(interposer
                            .countRequestsMatching(com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                                            urlPathMatching(".*/SHA256SUMS\\.sig"))
                                    .build())
                            .getCount())
                    .as("the CLI fetched the forged signature")
                    .isPositive();
            assertThat(directory.resolve(".terraform/providers/example.test/acme/forgedsig"))
                    .doesNotExist();
        } finally {
            interposer.stop();
        }
    }

    @Test
    void aDownloadDocumentWithUpperCaseTwinsNeverInstallsTheAttackersPackage() throws Exception {
        FakeOrigin.Release genuine = run.origin().publish("acme", "twinned", "1.0.0", "linux_amd64");
        try (FakeOrigin attacker = FakeOrigin.start(run.origin().certificates())) {
            FakeOrigin.Release evil =
                    attacker.publish("acme", "twinned", "1.0.0", FakeOrigin.Tamper.NONE, 5_000, "linux_amd64");
            CaseTwinnedDownload.serve(run.origin(), attacker, "twinned", "1.0.0", "linux_amd64");
            String attackersKey = attacker.signingKey().primaryFingerprint().substring(24);

            // The attack is real: the CLI installing straight from this origin takes the twins.
            Path straight = configuration("twinned-direct", "twinned", "1.0.0");
            TerraformCli.Result fromOrigin = init(direct, straight);
            assertThat(fromOrigin.exitCode()).as(fromOrigin.output()).isZero();
            assertThat(TerraformWorkspace.lockedHashes(straight)).contains("zh:" + evil.sha256("linux_amd64"));
            assertThat(fromOrigin.output()).contains("key ID " + attackersKey);

            // A CLI that trusts the mirror and, as for any public registry's files, the attacker's host too.
            Path bothCas = tmp.resolve("mirror-and-origin-ca.pem");
            Files.writeString(
                    bothCas,
                    Files.readString(run.mirror().mirror.generatedCaFile().orElseThrow()) + "\n"
                            + Files.readString(run.origin().caCertificate()));
            TerraformCli trusting = cli(
                    "face-trusting-origin",
                    "https://localhost:" + run.mirror().mirror.port() + "/registry/" + MirrorFixture.HOST
                            + "/providers.v1/",
                    bothCas);
            Path directory = configuration("twinned-face", "twinned", "1.0.0");
            TerraformCli.Result viaFace = init(trusting, directory);

            assertThat(viaFace.output())
                    .doesNotContain(attackersKey)
                    .doesNotContain("127.0.0.1:" + attacker.wireMock().httpsPort());
            if (viaFace.exitCode() == 0) {
                assertThat(TerraformWorkspace.lockedHashes(directory))
                        .contains("zh:" + genuine.sha256("linux_amd64"))
                        .doesNotContain("zh:" + evil.sha256("linux_amd64"));
            } else {
                assertThat(viaFace.output())
                        .as("the mirror refused the document")
                        .contains("502 Bad Gateway");
                assertThat(directory.resolve(".terraform/providers/example.test/acme/twinned"))
                        .doesNotExist();
            }
        }
    }

    @Test
    void anArchiveAlteredInTheCacheIsNeverServed() throws Exception {
        FakeOrigin.Release release = run.origin().publish("acme", "altered", "1.0.0", "linux_amd64");
        Path cache = tmp.resolve("altered-cache");
        try (MirrorFixture filling = MirrorFixture.start(cache, run.origin(), Duration.ofMinutes(15))) {
            TerraformCli.Result init =
                    init(faceCli("filling", filling), configuration("altered-1", "altered", "1.0.0"));
            assertThat(init.exitCode()).as(init.output()).isZero();
        }
        Path archive;
        try (Stream<Path> files = Files.walk(cache)) {
            archive = files.filter(p -> p.getFileName().toString().equals(release.fileName("linux_amd64")))
                    .collect(Collectors.toList())
                    .get(0);
        }
        byte[] bytes = Files.readAllBytes(archive);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(archive, bytes);

        try (MirrorFixture restarted = MirrorFixture.start(cache, run.origin(), Duration.ofMinutes(15))) {
            Path directory = configuration("altered-2", "altered", "1.0.0");
            TerraformCli.Result init = init(faceCli("restarted", restarted), directory);

            assertThat(init.exitCode()).as(init.output()).isZero();
            assertThat(TerraformWorkspace.lockedHashes(directory))
                    .contains("zh:" + release.sha256("linux_amd64"), h1(release, "linux_amd64"));
            assertThat(run.origin().archiveDownloads(release, "linux_amd64"))
                    .as("the mirror found the altered file on its first read, dropped it and fetched the genuine one")
                    .isEqualTo(2);
            assertThat(Files.readAllBytes(archive)).isEqualTo(release.archives().get("linux_amd64"));
        }
    }
}
