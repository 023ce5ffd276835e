package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.TestPgpKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

final class OpenPgpSignaturesTest {

    private static final byte[] SUMS = ("a".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n")
            .getBytes(StandardCharsets.UTF_8);

    private static TestPgpKey primaryOnly;
    private static TestPgpKey withSubkey;
    private static TestPgpKey stranger;

    @BeforeAll
    static void keys() {
        primaryOnly = TestPgpKey.generate("Primary <p@example.test>");
        withSubkey = TestPgpKey.generateWithSigningSubkey("Sub <s@example.test>");
        stranger = TestPgpKey.generate("Stranger <x@example.test>");
    }

    @Test
    void acceptsABinaryDetachedSignature() {
        String keyId = OpenPgpSignatures.verify(SUMS, primaryOnly.signDetached(SUMS), List.of(primaryOnly.armoredPublicKey()));
        assertThat(keyId).isEqualTo(primaryOnly.signingKeyId());
    }

    @Test
    void acceptsAnArmoredDetachedSignature() {
        assertThat(OpenPgpSignatures.verify(SUMS, primaryOnly.signDetachedArmored(SUMS),
                List.of(primaryOnly.armoredPublicKey()))).isEqualTo(primaryOnly.signingKeyId());
    }

    @Test
    void acceptsASignatureBySigningSubkeyBoundToTheListedKey() {
        assertThat(OpenPgpSignatures.verify(SUMS, withSubkey.signDetached(SUMS),
                List.of(stranger.armoredPublicKey(), withSubkey.armoredPublicKey()))).isEqualTo(withSubkey.signingKeyId());
    }

    @Test
    void refusesASignatureByAKeyTheOriginDoesNotList() {
        assertThatThrownBy(() -> OpenPgpSignatures.verify(SUMS, stranger.signDetached(SUMS),
                List.of(primaryOnly.armoredPublicKey())))
                .isInstanceOfSatisfying(VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining(stranger.signingKeyId());
    }

    @Test
    void refusesATamperedDocument() {
        byte[] signature = primaryOnly.signDetached(SUMS);
        byte[] tampered = SUMS.clone();
        tampered[0] = 'b';
        assertThatThrownBy(() -> OpenPgpSignatures.verify(tampered, signature, List.of(primaryOnly.armoredPublicKey())))
                .isInstanceOf(VerificationException.class).hasMessageContaining("does not verify");
    }

    @Test
    void refusesWhenTheOriginListsNoKeys() {
        assertThatThrownBy(() -> OpenPgpSignatures.verify(SUMS, primaryOnly.signDetached(SUMS), List.of()))
                .isInstanceOf(VerificationException.class).hasMessageContaining("no signing keys");
    }

    @Test
    void refusesGarbageSignaturesAndKeys() {
        assertThatThrownBy(() -> OpenPgpSignatures.verify(SUMS, "not a signature".getBytes(StandardCharsets.UTF_8),
                List.of(primaryOnly.armoredPublicKey()))).isInstanceOf(VerificationException.class);
        assertThatThrownBy(() -> OpenPgpSignatures.verify(SUMS, primaryOnly.signDetached(SUMS), List.of("garbage")))
                .isInstanceOf(VerificationException.class);
    }
}
