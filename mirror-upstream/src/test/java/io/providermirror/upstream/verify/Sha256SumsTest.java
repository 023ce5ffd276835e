package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class Sha256SumsTest {

    private static final String A = "a".repeat(64);
    private static final String B = "B".repeat(64);

    @Test
    void readsSha256sumOutputIncludingBinaryMarkersAndCrLf() {
        Sha256Sums sums = Sha256Sums.parse((A + "  terraform-provider-x_1.0.0_linux_amd64.zip\r\n" + B
                        + " *terraform-provider-x_1.0.0_darwin_arm64.zip\n\n")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(sums.hashOf("terraform-provider-x_1.0.0_linux_amd64.zip")).contains(A);
        assertThat(sums.hashOf("terraform-provider-x_1.0.0_darwin_arm64.zip")).contains("b".repeat(64));
        assertThat(sums.hashOf("terraform-provider-x_1.0.0_windows_amd64.zip")).isEmpty();
    }

    @Test
    void fileNamesMatchExactly() {
        Sha256Sums sums = Sha256Sums.parse((A + "  Terraform-Provider.zip\n").getBytes(StandardCharsets.UTF_8));
        assertThat(sums.hashOf("terraform-provider.zip")).isEmpty();
        assertThat(sums.hashOf("Terraform-Provider.zip")).contains(A);
    }

    @Test
    void rejectsLinesThatAreNotHashLines() {
        assertThatThrownBy(() -> Sha256Sums.parse("<html>not found</html>\n".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1");
        assertThatThrownBy(() -> Sha256Sums.parse(("abc  short.zip\n").getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsAFileListedTwiceWithDifferentHashes() {
        assertThatThrownBy(() -> Sha256Sums.parse(
                        (A + "  x.zip\n" + "c".repeat(64) + "  x.zip\n").getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("twice");
    }
}
