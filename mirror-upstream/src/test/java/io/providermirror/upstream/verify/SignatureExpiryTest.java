package io.providermirror.upstream.verify;

import static io.providermirror.upstream.verify.PgpBytes.concat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.TestPgpKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Dates judged as Terraform 1.11 judges them (go-crypto v1.0.0's checkSignatureDetails, then Terraform tolerating
 * ErrKeyExpired): an expired signature is refused, an expired key is not, and the first listed key holding the
 * signature's issuer decides.
 */
final class SignatureExpiryTest {

    private static final byte[] SUMS =
            ("b".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n").getBytes(StandardCharsets.UTF_8);
    private static final Instant MADE = Instant.parse("2025-01-01T00:00:00Z");
    private static final Instant SIGNED = MADE.plus(Duration.ofDays(1));
    private static final Duration MONTH = Duration.ofDays(30);

    // Made once per JVM, not per run of the class: RSA keys take a while, and mutation testing runs these tests
    // again for every mutant.
    private static final TestPgpKey forever =
            TestPgpKey.generateDated("Forever <f@example.test>", false, new TestPgpKey.Dates(MADE, null));
    private static final TestPgpKey foreverSubkey =
            TestPgpKey.generateDated("Sub <s@example.test>", true, new TestPgpKey.Dates(MADE, null));
    private static final TestPgpKey monthLong =
            TestPgpKey.generateDated("Month <m@example.test>", false, new TestPgpKey.Dates(MADE, MONTH));
    private static final TestPgpKey crossMonth =
            TestPgpKey.generateDated("Cross month <cm@example.test>", true, new TestPgpKey.Dates(MADE, null, MONTH));
    private static final TestPgpKey unreadable =
            TestPgpKey.generateFlawed("Flawed <u@example.test>", TestPgpKey.Flaw.SUBKEY_WITHOUT_BACK_SIGNATURE);
    private static final TestPgpKey monthLongSubkey =
            TestPgpKey.generateDated("Month sub <ms@example.test>", true, new TestPgpKey.Dates(MADE, MONTH));

    @Test
    void anExpiredSignatureIsRefusedWithItsDates() {
        for (TestPgpKey key : List.of(forever, foreverSubkey)) {
            byte[] signature = key.signDetached(SUMS, SIGNED, MONTH);
            List<String> listed = List.of(key.armoredPublicKey());
            assertThat(OpenPgpSignatures.verify(SUMS, signature, listed, SIGNED.plus(Duration.ofDays(29))))
                    .isEqualTo(key.signingKeyId());
            Instant later = SIGNED.plus(Duration.ofDays(31));
            assertThatThrownBy(() -> OpenPgpSignatures.verify(SUMS, signature, listed, later))
                    .isInstanceOfSatisfying(
                            VerificationException.class,
                            e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE_EXPIRED))
                    .hasMessageContaining("the signature over SHA256SUMS by " + key.signingKeyId()
                            + " expired on 2025-02-01T00:00:00Z (made 2025-01-02T00:00:00Z, valid for 30 day(s))")
                    .hasMessageContaining("judged at " + later);
        }
    }

    @Test
    void anExpiredCrossSignatureOfTheSigningSubkeyIsRefusedWhileKeyBindingAndSignatureAreCurrent() {
        // go-crypto v1.0.0 judges the subkey's embedded back-signature with the others (checkSignatureDetails).
        byte[] signature = crossMonth.signDetached(SUMS, SIGNED, null);
        List<String> listed = List.of(crossMonth.armoredPublicKey());
        assertThat(OpenPgpSignatures.verify(SUMS, signature, listed, MADE.plus(Duration.ofDays(29))))
                .isEqualTo(crossMonth.signingKeyId());
        Instant later = MADE.plus(Duration.ofDays(31));
        assertThatThrownBy(() -> OpenPgpSignatures.verify(SUMS, signature, listed, later))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE_EXPIRED))
                .hasMessageContaining("the cross-signature of the subkey " + crossMonth.signingKeyId()
                        + " expired on 2025-01-31T00:00:00Z (made 2025-01-01T00:00:00Z, valid for 30 day(s))");
    }

    @Test
    void aSignatureMadeAfterTheTimeItIsJudgedAtIsRefused() {
        byte[] signature = forever.signDetached(SUMS, SIGNED, null);
        assertThatThrownBy(() -> OpenPgpSignatures.verify(
                        SUMS, signature, List.of(forever.armoredPublicKey()), SIGNED.minusSeconds(60)))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE_EXPIRED))
                .hasMessageContaining("was made on 2025-01-02T00:00:00Z, after 2025-01-01T23:59:00Z");
        assertThat(OpenPgpSignatures.verify(SUMS, signature, List.of(forever.armoredPublicKey()), SIGNED))
                .isEqualTo(forever.signingKeyId());
    }

    @Test
    void anExpiredKeyIsToleratedAsTerraformToleratesIt() {
        Instant yearLater = MADE.plus(Duration.ofDays(365));
        for (TestPgpKey key : List.of(monthLong, monthLongSubkey)) {
            assertThat(OpenPgpSignatures.verify(
                            SUMS, key.signDetached(SUMS, SIGNED, null), List.of(key.armoredPublicKey()), yearLater))
                    .as("a signature without expiry by a key that expired since")
                    .isEqualTo(key.signingKeyId());
            // go-crypto finds the expired key first and Terraform ignores that error: the signature's own expiry is
            // never looked at.
            assertThat(OpenPgpSignatures.verify(
                            SUMS, key.signDetached(SUMS, SIGNED, MONTH), List.of(key.armoredPublicKey()), yearLater))
                    .as("an expired signature by an expired key")
                    .isEqualTo(key.signingKeyId());
        }
        // Before the key expires, its expired signature is refused.
        assertThatThrownBy(() -> OpenPgpSignatures.verify(
                        SUMS,
                        monthLong.signDetached(SUMS, SIGNED, Duration.ofDays(2)),
                        List.of(monthLong.armoredPublicKey()),
                        SIGNED.plus(Duration.ofDays(10))))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE_EXPIRED));
    }

    @Test
    void theFirstListedKeyHoldingTheIssuerDecidesAsInTheCli() {
        // One signature file, two signatures: an expired one by the first listed key, a valid one by the second.
        byte[] both = concat(forever.signDetached(SUMS, SIGNED, MONTH), foreverSubkey.signDetached(SUMS, SIGNED, null));
        Instant later = SIGNED.plus(Duration.ofDays(60));
        assertThatThrownBy(() -> OpenPgpSignatures.verify(
                        SUMS, both, List.of(forever.armoredPublicKey(), foreverSubkey.armoredPublicKey()), later))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE_EXPIRED))
                .hasMessageContaining(forever.signingKeyId());
        assertThat(OpenPgpSignatures.verify(
                        SUMS, both, List.of(foreverSubkey.armoredPublicKey(), forever.armoredPublicKey()), later))
                .as("listed first, the key whose signature is valid decides")
                .isEqualTo(foreverSubkey.signingKeyId());
        // A pin does not let a later pinned key overrule the CLI's refusal at the first key.
        assertThatThrownBy(() -> OpenPgpSignatures.verify(
                        SUMS,
                        both,
                        List.of(forever.armoredPublicKey(), foreverSubkey.armoredPublicKey()),
                        Set.of(foreverSubkey.primaryFingerprint()),
                        "pins",
                        later))
                .isInstanceOf(VerificationException.class);
        // Nor does a revoked first key's refusal give way to a good second key.
        byte[] byBoth =
                concat(forever.signDetached(SUMS, SIGNED, null), foreverSubkey.signDetached(SUMS, SIGNED, null));
        assertThatThrownBy(() -> OpenPgpSignatures.verify(
                        SUMS,
                        byBoth,
                        List.of(forever.armoredPublicKeyRevokingSigner(), foreverSubkey.armoredPublicKey()),
                        later))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("the key " + forever.signingKeyId() + " is revoked");
    }

    @Test
    void aListedKeyTheCliCannotReadStopsTheSearch() {
        byte[] signature = forever.signDetached(SUMS, SIGNED, null);
        Instant later = SIGNED.plus(Duration.ofDays(1));
        assertThatThrownBy(() -> OpenPgpSignatures.verify(
                        SUMS, signature, List.of(unreadable.armoredPublicKey(), forever.armoredPublicKey()), later))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("reads nothing of the origin's signing key #1");
        assertThat(OpenPgpSignatures.verify(
                        SUMS, signature, List.of(forever.armoredPublicKey(), unreadable.armoredPublicKey()), later))
                .as("the CLI never reads a key after the one that verified")
                .isEqualTo(forever.signingKeyId());
    }
}
