package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The PAX records a tar's extended header holds, read for their {@code path} as written. */
final class TarHeaderNamesTest {

    private static byte[] bytes(String header) {
        return header.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyPathRecordIsReadAsWrittenAndOtherKeysArePassedOver() throws IOException {
        String header = "22 path=/etc/cron.d/x\n" + "20 linkpath=/target\n" + "\n" + "30 mtime=1700000000.123456789\n"
                + "12 path=a=b\n";
        assertThat(TarHeaderNames.paths(bytes(header))).containsExactly("/etc/cron.d/x", "a=b");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "23 path=/etc/cron.d/x\n", // longer than the header
                "21 path=/etc/cron.d/x\n", // shorter than the record: its last byte is no newline
                "x22 path=/etc/cron.d/x\n",
                "22path=/etc/cron.d/x\n",
                "9 path/etc\n",
                "0 \n"
            })
    void aRecordThatDoesNotParseRefusesTheHeader(String header) {
        assertThatThrownBy(() -> TarHeaderNames.paths(bytes(header)))
                .isInstanceOf(IOException.class)
                .hasMessage("a PAX extended header whose records cannot be read");
    }
}
