package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class RouteParserTest {

    private static final ProviderAddress RANDOM = new ProviderAddress("registry.terraform.io", "hashicorp", "random");

    @Test
    void parsesTheThreeMirrorRequests() {
        assertThat(RouteParser.parse("/providers/registry.terraform.io/hashicorp/random/index.json"))
                .isEqualTo(new Route.VersionIndex(RANDOM));
        assertThat(RouteParser.parse("/providers/registry.terraform.io/hashicorp/random/2.0.0.json"))
                .isEqualTo(new Route.VersionDocument(RANDOM, new ProviderVersion("2.0.0")));
        assertThat(
                        RouteParser.parse(
                                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_2.0.0-rc.1_darwin_arm64.zip"))
                .isEqualTo(
                        new Route.Archive(RANDOM, new ProviderVersion("2.0.0-rc.1"), new Platform("darwin", "arm64")));
        assertThat(RouteParser.parse("/providers/example.test:8443/a_b/c-d/index.json"))
                .isEqualTo(new Route.VersionIndex(new ProviderAddress("example.test:8443", "a_b", "c-d")));
    }

    @Test
    void theMirrorRequestsAreAnsweredAtTheRootTooForAUrlWithoutItsTrailingSlash() {
        // network_mirror { url = "https://mirror/providers" }: the CLI resolves its relative paths against "/".
        assertThat(RouteParser.parse("/registry.terraform.io/hashicorp/random/index.json"))
                .isEqualTo(new Route.VersionIndex(RANDOM));
        assertThat(RouteParser.parse("/registry.terraform.io/hashicorp/random/2.0.0.json"))
                .isEqualTo(new Route.VersionDocument(RANDOM, new ProviderVersion("2.0.0")));
        assertThat(RouteParser.parse(
                        "/registry.terraform.io/hashicorp/random/terraform-provider-random_2.0.0_linux_amd64.zip"))
                .isEqualTo(new Route.Archive(RANDOM, new ProviderVersion("2.0.0"), new Platform("linux", "amd64")));
        assertThat(RouteParser.parse("/example.test:8443/a_b/c-d/index.json"))
                .isEqualTo(new Route.VersionIndex(new ProviderAddress("example.test:8443", "a_b", "c-d")));
        // Checked exactly as below the base path.
        assertThat(RouteParser.parse("/registry.terraform.io/hashicorp/random/v1.0.0.json"))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(400));
        assertThat(RouteParser.parse("/127.1/hashicorp/random/index.json"))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(404));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/registry/hashicorp/random/index.json",
                "/status/hashicorp/random/index.json",
                "/providers/registry.terraform.io/hashicorp/random/index.json/x",
                "/.well-known/hashicorp/random/index.json",
                "/registry.terraform.io/hashicorp/random",
                "/registry.terraform.io/hashicorp/random/index.json/x",
                "/Registry.terraform.io/hashicorp/random/index.json",
                "/favicon.ico"
            })
    void theRootAnswersOnlyWhatLooksLikeAMirrorRequestAndTheMirrorsOwnFoldersStayTheirs(String path) {
        assertThat(RouteParser.parse(path))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isIn(400, 404));
    }

    @Test
    void theDefaultPortOfAHostIsTheHostItself() {
        assertThat(RouteParser.parse("/providers/registry.terraform.io:443/hashicorp/random/index.json"))
                .isEqualTo(new Route.VersionIndex(RANDOM));
    }

    @Test
    void theBaseUrlAndRootAreTheHomePage() {
        assertThat(RouteParser.parse("/")).isInstanceOf(Route.Home.class);
        assertThat(RouteParser.parse("/providers/")).isInstanceOf(Route.Home.class);
    }

    @Test
    void theManualIsTheReadmeAtDocsAndOnePageOfDocsBelowIt() {
        assertThat(RouteParser.parse("/docs")).isEqualTo(new Route.Docs(""));
        assertThat(RouteParser.parse("/docs/using.md")).isEqualTo(new Route.Docs("using"));
        assertThat(RouteParser.parse("/docs/closed-network.md")).isEqualTo(new Route.Docs("closed-network"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/docs/../README.md",
                "/docs/using",
                "/docs/Using.md",
                "/docs/sub/using.md",
                "/docs/%2e%2e.md",
                "/docs/.md",
                "/docs/-x.md"
            })
    void anythingElseBelowDocsIsABadRequest(String path) {
        assertThat(RouteParser.parse(path)).isInstanceOf(Route.Invalid.class);
        assertThat(((Route.Invalid) RouteParser.parse(path)).status()).isEqualTo(400);
    }

    @Test
    void aProvidersStatusViewAndTheGeneratedCaHaveTheirOwnRoutes() {
        assertThat(RouteParser.parse("/status/providers/registry.terraform.io/hashicorp/random"))
                .isEqualTo(
                        new Route.ProviderStatus(new ProviderAddress("registry.terraform.io", "hashicorp", "random")));
        assertThat(RouteParser.parse("/ca.pem")).isInstanceOf(Route.CaCertificate.class);
        assertThat(Route.name(RouteParser.parse("/ca.pem"))).isEqualTo("ca");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/status/providers/registry.terraform.io/hashicorp",
                "/status/providers/registry.terraform.io/hashicorp/random/",
                "/status/providers/registry.terraform.io/hashicorp/random/1.0.0",
                "/status/providers/Registry.terraform.io/hashicorp/random",
                "/status/providers/127.1/hashicorp/random",
                "/status/providers/registry.terraform.io/../random",
                "/status/providers/registry.terraform.io/hashicorp/<script>"
            })
    void malformedProviderStatusPathsAreBadRequests(String path) {
        assertThat(RouteParser.parse(path))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(400));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/providers/%2e%2e/x/y/index.json",
                "/providers/registry.terraform.io/hashicorp/random%2findex.json",
                "/providers/../../etc/passwd",
                "/providers/registry.terraform.io/../../x/index.json",
                "/providers/Registry.terraform.io/hashicorp/random/index.json",
                "/providers/registry.terraform.io/hashicorp/random/v1.0.0.json",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-other_1.0.0_linux_amd64.zip",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_1.0_linux_amd64.zip",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_1.0.0_linux.zip",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_1.0.0_linux_amd64_x.zip",
                "/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_1.0.0_Linux_amd64.zip",
                "/providers/registry.terraform.io/hashicorp/random/random.tar.gz",
                "/providers/registry.terraform.io/hashicorp/random/",
                "/providers/registry.terraform.io/hashicorp/random/index.json/extra",
                "/providers/registry.terraform.io//random/index.json",
                "/providers/registry.terraform.io/hashicorp/random/1.0.0\u0000.json",
                "/providers/registry.terraform.io/hashicorp/random/1.0.0 .json",
                "/providers/a\\b/c/d/index.json",
                "/providers/127.1/hashicorp/random/index.json",
                "/providers/0x7f.1/hashicorp/random/index.json",
                "/providers/0177.0.0.1/hashicorp/random/index.json",
                "/providers/2130706433/hashicorp/random/index.json",
                "/providers/127.1:8443/hashicorp/random/index.json"
            })
    void malformedMirrorPathsAreBadRequests(String path) {
        assertThat(RouteParser.parse(path))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(400));
    }

    @Test
    void pathsOutsideTheMirrorAreNotFound() {
        assertThat(RouteParser.parse("/v1/providers/x"))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(404));
        assertThat(RouteParser.parse("/" + "a".repeat(2000)))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(400));
    }

    @Test
    void generatedPathsNeverThrowAndOnlyValidOnesRoute() {
        Random random = new Random(42);
        String alphabet = "/.%:_-azAZ09+\\\u0000 \u00e9";
        String[] stems = {
            "/providers/",
            "/providers/example.test/",
            "/providers/example.test/acme/",
            "/providers/example.test/acme/fake/",
            "/",
            "/status/providers/",
            "/status/providers/example.test/acme/"
        };
        for (int i = 0; i < 20_000; i++) {
            StringBuilder path = new StringBuilder(stems[random.nextInt(stems.length)]);
            int length = random.nextInt(40);
            for (int j = 0; j < length; j++) {
                path.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            Route route = RouteParser.parse(path.toString());
            if (route instanceof Route.Invalid invalid) {
                assertThat(invalid.status()).isIn(400, 404);
            } else if (!(route instanceof Route.Home)) {
                assertThat(path.toString()).doesNotContain("..", "%", "\\", "\u0000", " ");
            }
        }
    }

    @Test
    void theOperationsPathsHaveTheirOwnRoutes() {
        assertThat(RouteParser.parse("/metrics")).isEqualTo(new Route.Metrics());
        assertThat(RouteParser.parse("/status.json")).isEqualTo(new Route.StatusJson());
        assertThat(RouteParser.parse("/healthz")).isEqualTo(new Route.Health());
        assertThat(RouteParser.parse("/readyz")).isEqualTo(new Route.Ready());
    }

    @Test
    void aPathOfTheLongestLengthIsReadAndOneCharacterMoreIsRefused() {
        String longest = "/" + "a".repeat(RouteParser.MAX_PATH_LENGTH - 1);
        assertThat(RouteParser.parse(longest))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.status()).isEqualTo(404));
        assertThat(RouteParser.parse(longest + "a"))
                .isEqualTo(new Route.Invalid(400, "the request path is longer than 1024 characters"));
    }

    @Test
    void aPercentSignAnywhereIsRefusedTheFirstCharacterToo() {
        Route refused = new Route.Invalid(400, "percent-encoded characters are not valid in mirror paths");
        assertThat(RouteParser.parse("%2Fproviders")).isEqualTo(refused);
        assertThat(RouteParser.parse("/providers/%2e%2e/index.json")).isEqualTo(refused);
    }

    @Test
    void printableAsciiFromExclamationMarkToTildeIsReadAndNothingBeyond() {
        Route refused = new Route.Invalid(400, "the request path holds a character that is not valid in mirror paths");
        for (String path : new String[] {"/!", "/~", "/a!b~"}) {
            assertThat(RouteParser.parse(path)).as(path).isNotEqualTo(refused);
        }
        for (String path : new String[] {"/ ", "/\u007f", "/\u0000", "/\u00e9", "/\t", "/a\\b"}) {
            assertThat(RouteParser.parse(path)).as(path).isEqualTo(refused);
        }
    }

    @Test
    void anArchiveNameWithoutAVersionBeforeItsPlatformIsMalformed() {
        String prefix = "/providers/registry.terraform.io/hashicorp/random/";
        String expected = "expected terraform-provider-random_<version>_<os>_<arch>.zip";
        assertThat(RouteParser.parse(prefix + "terraform-provider-random__linux_amd64.zip"))
                .isEqualTo(new Route.Invalid(
                        400, "malformed archive name 'terraform-provider-random__linux_amd64.zip': " + expected));
        assertThat(RouteParser.parse(prefix + "terraform-provider-random_1.0.0_amd64.zip"))
                .isInstanceOfSatisfying(
                        Route.Invalid.class,
                        invalid -> assertThat(invalid.message()).startsWith("malformed "));
    }
}
