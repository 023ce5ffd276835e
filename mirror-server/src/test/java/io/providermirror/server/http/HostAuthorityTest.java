package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostAuthorityTest {

    /** What the check replaced, kept as its specification: the verdicts must be the same. */
    private static final Pattern SPECIFICATION =
            Pattern.compile("[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]{2,45}](:[0-9]{1,5})?");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "mirror.example.com",
                "mirror.example.com:8443",
                "localhost",
                "127.0.0.1:18443",
                "[::1]",
                "[::1]:8443",
                "[2001:DB8::a]:1",
                "a",
                "x:65535",
                "-.-"
            })
    void authoritiesAClientMayUsePass(String host) {
        assertThat(HostAuthority.isValid(host)).isTrue();
        assertThat(HostAuthority.checked(host)).isEqualTo(host);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "evil.test/path",
                "evil.test?x",
                "user@evil.test",
                "evil.test#x",
                "a b",
                "a\r\nLocation: x",
                "\u00e9.test",
                "mirror.test:",
                ":8443",
                "mirror.test:123456",
                "mirror.test:8x",
                "mirror.test:8443:1",
                "[]",
                "[1]",
                "[::1",
                "::1]",
                "[::1]x",
                "[::1]:",
                "[::g]",
                "[::1]]",
                "[[::1]",
                "[::1]:8443/x",
                "mirror.test\u0000",
                "\uff11.test"
            })
    void anythingElseIsRefused(String host) {
        assertThat(HostAuthority.isValid(host)).isFalse();
        assertThat(HostAuthority.checked(host)).isNull();
    }

    @Test
    void noHeaderIsRefused() {
        assertThat(HostAuthority.isValid(null)).isFalse();
        assertThat(HostAuthority.checked(null)).isNull();
    }

    @Test
    void theBoundsOfEachPartAreThoseOfTheSpecification() {
        assertThat(HostAuthority.isValid("a".repeat(253))).isTrue();
        assertThat(HostAuthority.isValid("a".repeat(254))).isFalse();
        assertThat(HostAuthority.isValid("a".repeat(253) + ":1")).isTrue();
        assertThat(HostAuthority.isValid("[" + "1".repeat(45) + "]")).isTrue();
        assertThat(HostAuthority.isValid("[" + "1".repeat(46) + "]")).isFalse();
        assertThat(HostAuthority.isValid("[12]:12345")).isTrue();
        assertThat(HostAuthority.isValid("[12]:123456")).isFalse();
    }

    @Test
    void everyVerdictOnRandomTextIsTheSpecifications() {
        // Characters each part treats differently, and some no part allows.
        String alphabet = "aZ09.-:[]fFgG/@ %\u00e9\r";
        Random random = new Random(31);
        int passed = 0;
        for (int n = 0; n < 200_000; n++) {
            StringBuilder host = new StringBuilder();
            int length = random.nextInt(12);
            if (random.nextInt(4) == 0) {
                host.append('[');
            }
            for (int i = 0; i < length; i++) {
                host.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String text = host.toString();
            boolean expected = SPECIFICATION.matcher(text).matches();
            assertThat(HostAuthority.isValid(text)).as("%s", text).isEqualTo(expected);
            passed += expected ? 1 : 0;
        }
        // The random texts reach both verdicts often enough to say something about each.
        assertThat(passed).isGreaterThan(1_000);
    }
}
