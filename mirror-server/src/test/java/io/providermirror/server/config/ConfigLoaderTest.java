package io.providermirror.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ConfigLoaderTest {

    @TempDir
    Path tmp;

    private Path yaml(String text) throws IOException {
        Path file = tmp.resolve("mirror.yaml");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void noFileMeansEveryDefault() throws ConfigException {
        MirrorConfig config = new ConfigLoader(Map.of()).load(null);
        assertThat(config.server().host()).isEqualTo("0.0.0.0");
        assertThat(config.server().port()).isEqualTo(8443);
        assertThat(config.server().tls()).isNull();
        assertThat(config.cache().directory()).isEqualTo(Path.of("mirror-data"));
        assertThat(config.cache().indexTtl()).isEqualTo(Duration.ofMinutes(15));
        assertThat(config.upstream().hosts()).isEmpty();
        assertThat(config.upstream().trustedCertificates()).isNull();
    }

    @Test
    void readsEveryDocumentedKey() throws Exception {
        MirrorConfig config = new ConfigLoader(Map.of()).load(yaml("""
                server:
                  host: 127.0.0.1
                  port: 9443
                  metadataTimeout: 6s
                  shutdownGracePeriod: 45s
                  tls:
                    certificate: /etc/mirror/chain.pem
                    privateKey: /etc/mirror/key.pem
                cache:
                  directory: /var/cache/mirror
                  indexTtl: 5m
                  maxSize: 50GiB
                  metadataMemory: 64MiB
                upstream:
                  trustedCertificates: /etc/mirror/ca.pem
                  connectTimeout: 2s
                  requestTimeout: PT7S
                  readTimeout: 45s
                  maxAttempts: 2
                  maxArchiveBytes: 1000000
                  hosts:
                    registry.terraform.io:
                      discoveryUrl: https://127.0.0.1:9443/
                    artifacts.corp: {}
                management:
                  host: 127.0.0.1
                  port: 9100
                logging:
                  format: JSON
                """));
        assertThat(config.server().host()).isEqualTo("127.0.0.1");
        assertThat(config.server().port()).isEqualTo(9443);
        assertThat(config.server().tls().certificate()).isEqualTo(Path.of("/etc/mirror/chain.pem"));
        assertThat(config.server().tls().privateKey()).isEqualTo(Path.of("/etc/mirror/key.pem"));
        assertThat(config.cache().directory()).isEqualTo(Path.of("/var/cache/mirror"));
        assertThat(config.cache().indexTtl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.cache().maxSize()).isEqualTo(new DataSize(50L << 30));
        assertThat(config.cache().metadataMemory()).isEqualTo(new DataSize(64L << 20));
        assertThat(config.server().metadataTimeout()).isEqualTo(Duration.ofSeconds(6));
        assertThat(config.server().shutdownGracePeriod()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.management().host()).isEqualTo("127.0.0.1");
        assertThat(config.management().port()).isEqualTo(9100);
        assertThat(config.logging().json()).isTrue();
        assertThat(config.upstream().trustedCertificates()).isEqualTo(Path.of("/etc/mirror/ca.pem"));
        assertThat(config.upstream().connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.upstream().requestTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(config.upstream().maxArchiveBytes()).isEqualTo(1_000_000L);
        assertThat(config.upstream().maxAttempts()).isEqualTo(2);
        assertThat(config.upstream().readTimeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.upstream().hosts().get("registry.terraform.io").discoveryUrl())
                .isEqualTo(URI.create("https://127.0.0.1:9443/"));
        assertThat(config.upstream().hosts().get("artifacts.corp").discoveryUrl())
                .isNull();
    }

    @Test
    void unknownKeysStopStartUpNamingTheKey() throws IOException {
        Path file = yaml("server:\n  prot: 1\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown configuration key 'server.prot'")
                .hasMessageContaining(
                        "host, idleTimeout, maxConnections, metadataTimeout, nativeTransport, plainHttp, port, publicUrl, requestReadTimeout, shutdownGracePeriod, tls");
    }

    @Test
    void invalidValuesStopStartUpNamingKeyAndExpectation() throws IOException {
        Path badPort = yaml("server:\n  port: eighty\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(badPort))
                .hasMessageContaining("'server.port'")
                .hasMessageContaining("a whole number");
        Path outOfRange = yaml("server:\n  port: 70000\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(outOfRange))
                .hasMessageContaining("'server.port': 70000")
                .hasMessageContaining("0 to 65535");
        Path badDuration = yaml("cache:\n  indexTtl: soon\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(badDuration))
                .hasMessageContaining("'cache.indexTtl'")
                .hasMessageContaining("15m");
        Path badSize = yaml("cache:\n  maxSize: lots\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(badSize))
                .hasMessageContaining("'cache.maxSize'")
                .hasMessageContaining("50GiB");
        Path badUrl = yaml("upstream:\n  hosts:\n    example.test:\n      discoveryUrl: ftp://x/\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(badUrl))
                .hasMessageContaining("'upstream.hosts.example.test.discoveryUrl'")
                .hasMessageContaining("https");
        Path badHost = yaml("upstream:\n  hosts:\n    Not A Host:\n      discoveryUrl: https://x/\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(badHost))
                .hasMessageContaining("'upstream.hosts'")
                .hasMessageContaining("Not A Host");
        Path halfTls = yaml("server:\n  tls:\n    certificate: /x.pem\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(halfTls))
                .hasMessageContaining("'server.tls.privateKey'");
        Path perHostAboveTotal = yaml("upstream:\n  maxConcurrentFills: 4\n  maxConcurrentFillsPerHost: 8\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(perHostAboveTotal))
                .hasMessageContaining("'upstream.maxConcurrentFillsPerHost': 8")
                .hasMessageContaining("1 to maxConcurrentFills, 4");
        Path negativeQueue = yaml("upstream:\n  maxWaitingPerHost: -1\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(negativeQueue))
                .hasMessageContaining("'upstream.maxWaitingPerHost': -1")
                .hasMessageContaining("0 to 1000000");
        Path noConnections = yaml("server:\n  maxConnections: 0\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(noConnections))
                .hasMessageContaining("'server.maxConnections': 0")
                .hasMessageContaining("> 0");
        Path negativeTtl = yaml("cache:\n  notFoundTtl: -1s\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(negativeTtl)).hasMessageContaining("notFoundTtl");
        Path badRate = yaml("upstream:\n  minTransferRate: fast\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(badRate))
                .hasMessageContaining("'upstream.minTransferRate'");
        Path notYaml = yaml("server: [\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(notYaml)).hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(tmp.resolve("missing.yaml")))
                .hasMessageContaining("does not exist");
    }

    @Test
    void environmentVariablesOverrideTheFile() throws Exception {
        Path file = yaml("server:\n  port: 9000\ncache:\n  directory: /from/file\n");
        MirrorConfig config = new ConfigLoader(Map.of(
                        "PROVIDER_MIRROR_SERVER_PORT", "9555",
                        "PROVIDER_MIRROR_SERVER_TLS_CERTIFICATE", "/env/chain.pem",
                        "PROVIDER_MIRROR_SERVER_TLS_PRIVATEKEY", "/env/key.pem",
                        "PROVIDER_MIRROR_CACHE_INDEXTTL", "30s",
                        "PROVIDER_MIRROR_UPSTREAM_HOSTS", "{example.test: {discoveryUrl: 'https://127.0.0.1:1/'}}",
                        "UNRELATED", "x"))
                .load(file);
        assertThat(config.server().port()).isEqualTo(9555);
        assertThat(config.server().tls().privateKey()).isEqualTo(Path.of("/env/key.pem"));
        assertThat(config.cache().directory()).isEqualTo(Path.of("/from/file"));
        assertThat(config.cache().indexTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.upstream().hosts()).containsKey("example.test");
    }

    @Test
    void badValuesAreExplainedInWordsWithoutParserInternals() throws IOException {
        Path size = yaml("cache:\n  maxSize: 50 gigs\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(size))
                .hasMessage(
                        "configuration file " + size + ": configuration key 'cache.maxSize': '50 gigs' is not valid "
                                + "(expected: a size such as 50GiB, 500MB or a number of bytes)");
        Path platforms = yaml("policy:\n  platforms: linux_amd64\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(platforms))
                .hasMessageContaining("'policy.platforms'")
                .hasMessageContaining("a list")
                .hasMessageNotContaining("ArrayList");
        Path constraint = yaml("policy:\n  allow:\n    - provider: registry.terraform.io/hashicorp/*\n"
                + "      versions: \"~> banana\"\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(constraint))
                .hasMessageStartingWith("configuration file " + constraint
                        + ": configuration key 'policy.allow[0].versions': '~> banana' is not a version constraint");
        for (Path file : java.util.List.of(size, platforms, constraint)) {
            assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(file))
                    .message()
                    .doesNotContain("Exception", "Source:", "UNKNOWN", "com.fasterxml");
        }
    }

    @Test
    void anInvalidEnvironmentVariableIsNamed() {
        assertThatThrownBy(() -> new ConfigLoader(Map.of("PROVIDER_MIRROR_SERVER_PORT", "abc")).load(null))
                .hasMessageStartingWith("PROVIDER_MIRROR_SERVER_PORT=abc: ")
                .hasMessageContaining("'server.port'")
                .hasMessageContaining("a whole number");
        assertThatThrownBy(() -> new ConfigLoader(Map.of("PROVIDER_MIRROR_CACHE_INDEXTTL", "-5m")).load(null))
                .hasMessageStartingWith("PROVIDER_MIRROR_CACHE_INDEXTTL=-5m: ");
    }

    @Test
    void policyRulesAcceptTheShortFormsOfTheCli() throws Exception {
        Path file = yaml("policy:\n  allow:\n    - hashicorp/*\n    - provider: example.test/acme/*\n"
                + "      versions: \">= 1.0\"\n  deny:\n    - provider: hashicorp/aws\n      versions: \"< 5.0\"\n");
        PolicyConfig policy = new ConfigLoader(Map.of()).load(file).policy();
        assertThat(policy.allow())
                .containsExactly(
                        new ProviderRule("registry.terraform.io/hashicorp/*", null),
                        new ProviderRule("example.test/acme/*", ">= 1.0"));
        assertThat(policy.deny()).containsExactly(new ProviderRule("registry.terraform.io/hashicorp/aws", "< 5.0"));
    }

    @Test
    void unknownEnvironmentVariablesWithThePrefixStopStartUp() {
        assertThatThrownBy(() -> new ConfigLoader(Map.of("PROVIDER_MIRROR_SERVER_PROT", "1")).load(null))
                .hasMessageContaining("PROVIDER_MIRROR_SERVER_PROT")
                .hasMessageContaining("PROVIDER_MIRROR_SERVER_PORT");
    }

    @Test
    void sizesReadAsPeopleWriteThem() {
        assertThat(DataSize.parse("1024")).contains(new DataSize(1024));
        assertThat(DataSize.parse("500MB")).contains(new DataSize(500_000_000));
        assertThat(DataSize.parse("2 GiB")).contains(new DataSize(2L << 30));
        assertThat(DataSize.parse("1tib")).contains(new DataSize(1L << 40));
        assertThat(DataSize.parse("0")).isEmpty();
        assertThat(DataSize.parse("99999999999TiB")).isEmpty();
        assertThat(DataSize.parse("-5MB")).isEmpty();
    }

    @Test
    void everyKeyHasAnEnvironmentName() {
        assertThat(ConfigLoader.environmentNames())
                .containsEntry("PROVIDER_MIRROR_SERVER_HOST", "server.host")
                .containsEntry("PROVIDER_MIRROR_SERVER_TLS_PRIVATEKEY", "server.tls.privateKey")
                .containsEntry("PROVIDER_MIRROR_CACHE_DIRECTORY", "cache.directory")
                .containsEntry("PROVIDER_MIRROR_CACHE_MAXSIZE", "cache.maxSize")
                .containsEntry("PROVIDER_MIRROR_UPSTREAM_TRUSTEDCERTIFICATES", "upstream.trustedCertificates")
                .containsEntry("PROVIDER_MIRROR_UPSTREAM_HOSTS", "upstream.hosts");
    }

    @Test
    void anUnknownLogFormatStopsStartUp() throws IOException {
        Path file = yaml("logging:\n  format: xml\n");
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).load(file))
                .hasMessageContaining("'logging.format': 'xml' (expected: text or json)");
    }

    @Test
    void aTildeAtTheStartOfEveryPathKeyIsTheHomeDirectory() throws Exception {
        Path home = Path.of(System.getProperty("user.home"));
        MirrorConfig config =
                new ConfigLoader(Map.of("PROVIDER_MIRROR_SERVER_TLS_PRIVATEKEY", "~/tls/key.pem")).loadText("""
                        server:
                          tls:
                            certificate: ~/tls/chain.pem
                        cache:
                          directory: "~"
                        upstream:
                          terraformCredentials: ~/.terraform.d/credentials.tfrc.json
                          hosts:
                            registry.terraform.io:
                              tokenFile: ~/tokens/registry
                        modules:
                          gitHosts:
                            github.com:
                              tokenFile: ~/tokens/git
                        auth:
                          tokensFile: ~/mirror/tokens
                        """);
        assertThat(config.server().tls().certificate()).isEqualTo(home.resolve("tls/chain.pem"));
        assertThat(config.server().tls().privateKey()).isEqualTo(home.resolve("tls/key.pem"));
        assertThat(config.cache().directory()).isEqualTo(home);
        assertThat(config.upstream().terraformCredentials())
                .isEqualTo(home.resolve(".terraform.d/credentials.tfrc.json"));
        assertThat(config.upstream().hosts().get("registry.terraform.io").tokenFile())
                .isEqualTo(home.resolve("tokens/registry"));
        assertThat(config.modules().gitHosts().get("github.com").tokenFile()).isEqualTo(home.resolve("tokens/git"));
        assertThat(config.auth().tokensFile()).isEqualTo(home.resolve("mirror/tokens"));
    }

    @Test
    void aTildeElsewhereIsKeptAndAnotherUsersHomeIsRefused() throws Exception {
        MirrorConfig config = new ConfigLoader(Map.of()).loadText("cache:\n  directory: data/~/x\n");
        assertThat(config.cache().directory()).isEqualTo(Path.of("data/~/x"));
        assertThatThrownBy(() -> new ConfigLoader(Map.of()).loadText("cache:\n  directory: ~bob/x\n"))
                .hasMessageContaining("'cache.directory': '~bob/x' is not valid (expected: a file path)");
    }
}
