package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.TestPgpKey;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What reading the first listed key ahead of its signature does, seen in Bouncy Castle's memory of checked keys. */
final class SigningKeyAheadTest {

    private static final byte[] SUMS =
            ("a".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n").getBytes(StandardCharsets.UTF_8);
    private static final TestPgpKey FLAWED =
            TestPgpKey.generateFlawed("Flawed <f@example.test>", TestPgpKey.Flaw.SUBKEY_WITHOUT_KEY_FLAGS);

    @Test
    void theFirstListedKeyIsReadSoItsModuliAreCheckedBeforeTheSignatureComes() throws Exception {
        // Keys of their own: the class's keys may have been checked by the tests before.
        TestPgpKey first = TestPgpKey.generateWithSigningSubkey("First <first@example.test>");
        TestPgpKey second = TestPgpKey.generate("Second <second@example.test>");
        List<BigInteger> firstModuli = RsaModuli.of(first.armoredPublicKey());
        List<BigInteger> secondModuli = RsaModuli.of(second.armoredPublicKey());
        assertThat(firstModuli).hasSize(2);
        // Bouncy Castle remembers the keys it made as checked; an origin's keys were made elsewhere.
        RsaModuli.forgetChecked();
        assertThat(firstModuli).noneMatch(RsaModuli::checked);

        SigningKeyAhead.read(List.of(first.armoredPublicKey(), second.armoredPublicKey()));

        assertThat(firstModuli)
                .as("the primary key and its signing subkey, as the verification reads them first")
                .allMatch(RsaModuli::checked);
        assertThat(secondModuli)
                .as("never more than the verification reads: a later listed key only when the first holds no signer")
                .noneMatch(RsaModuli::checked);
        assertThat(VerifyNow.signature(
                        SUMS, first.signDetached(SUMS), List.of(first.armoredPublicKey(), second.armoredPublicKey())))
                .isEqualTo(first.signingKeyId());
    }

    @Test
    void readingAheadDecidesNothingAndLeavesWhatIsWrongToTheVerification() {
        SigningKeyAhead.read(List.of());
        SigningKeyAhead.read(List.of("not a key"));
        SigningKeyAhead.read(List.of(FLAWED.armoredPublicKey()));
        assertThatThrownBy(
                        () -> VerifyNow.signature(SUMS, FLAWED.signDetached(SUMS), List.of(FLAWED.armoredPublicKey())))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE));
    }
}
