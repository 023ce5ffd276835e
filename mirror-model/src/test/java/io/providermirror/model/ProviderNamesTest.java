package io.providermirror.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

final class ProviderNamesTest {

    @ParameterizedTest
    @CsvSource({
        "1.2.3,1.2.3",
        "1.2,1.2.0",
        "1,1.0.0",
        "1.0.0-beta.1,1.0.0-beta.1",
        "2.0.0+build.5,2.0.0+build.5",
        "0.13.0-rc1,0.13.0-rc1"
    })
    void versionsAreCanonicalisedAsTheCliRequestsThem(String given, String canonical) {
        assertThat(ProviderVersion.parse(given)).map(ProviderVersion::canonical).contains(canonical);
    }

    @ParameterizedTest
    @CsvSource({"1.0.0+evil,1.0.0", "1.0.0-rc.1+b.2,1.0.0-rc.1", "1.0.0,1.0.0", "1.0.0-rc.1,1.0.0-rc.1"})
    void buildMetadataComesOffForTheVersionTheCliMatches(String given, String without) {
        assertThat(new ProviderVersion(given).withoutBuildMetadata()).isEqualTo(new ProviderVersion(without));
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1.2.3", "1.2.3.4", "01.2.3", "1..2", "", "latest", "1.2.3-", "1.2.3/../x", "1.2.3\u0000"})
    void nonSemverVersionsAreRejected(String given) {
        assertThat(ProviderVersion.parse(given)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "registry.terraform.io",
                "example.test",
                "localhost",
                "host:8443",
                "xn--bcher-kva.example",
                "a-b.c-d.example",
                "127.0.0.1",
                "10.0.0.1:8443",
                "0x7f.example",
                "123.example"
            })
    void validHostnames(String hostname) {
        assertThat(ProviderAddress.isValidHostname(hostname)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Registry.terraform.io",
                "..",
                "a..b",
                "-a.example",
                "host:0",
                "host:65536",
                "host:",
                "host:08443",
                "a/b",
                "bücher.example",
                "",
                "a_b.example",
                "127.1",
                "0x7f.1",
                "0177.0.0.1",
                "2130706433",
                "0x7f000001",
                "127.0.0.01",
                "127.0.0.256",
                "1.2.3.4.5",
                "example.0x1",
                "example.123",
                "127.1:8443"
            })
    void invalidHostnames(String hostname) {
        assertThat(ProviderAddress.isValidHostname(hostname)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashicorp", "aws", "terraform-provider", "a", "my_org", "a1"})
    void validNames(String name) {
        assertThat(ProviderAddress.isValidName(name)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-a", "a-", "A", "a--b", "a.b", "..", "a b", "ünï"})
    void invalidNames(String name) {
        assertThat(ProviderAddress.isValidName(name)).isFalse();
    }

    @ParameterizedTest
    @CsvSource({
        "registry.terraform.io:443,registry.terraform.io",
        "example.test:8443,example.test:8443",
        "example.test,example.test"
    })
    void theDefaultPortIsFoldedAwaySoEveryRuleSeesOneSpellingOfAHost(String given, String normalised) {
        assertThat(new ProviderAddress(given, "hashicorp", "null").hostname()).isEqualTo(normalised);
        assertThat(ProviderAddress.parse(given.toUpperCase(java.util.Locale.ROOT) + "/hashicorp/null")
                        .hostname())
                .isEqualTo(normalised);
    }

    @org.junit.jupiter.api.Test
    void addressesParseLowercasedAndRejectBadParts() {
        assertThat(ProviderAddress.parse("Registry.Terraform.io/HashiCorp/AWS"))
                .isEqualTo(new ProviderAddress("registry.terraform.io", "hashicorp", "aws"));
        assertThatThrownBy(() -> ProviderAddress.parse("a/b")).hasMessageContaining("hostname/namespace/type");
        assertThat(Platform.parse("linux_amd64")).isEqualTo(new Platform("linux", "amd64"));
        assertThatThrownBy(() -> Platform.parse("linux_amd64_x")).isInstanceOf(IllegalArgumentException.class);
    }
}
