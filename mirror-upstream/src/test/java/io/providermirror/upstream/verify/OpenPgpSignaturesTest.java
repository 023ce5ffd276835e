package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.providermirror.testkit.TestPgpKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

final class OpenPgpSignaturesTest {

    private static final byte[] SUMS =
            ("a".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n").getBytes(StandardCharsets.UTF_8);

    // Made once per JVM, not per run of the class: RSA keys take a while, and mutation testing runs these tests
    // again for every mutant.
    private static final TestPgpKey primaryOnly = TestPgpKey.generate("Primary <p@example.test>");
    private static final TestPgpKey withSubkey = TestPgpKey.generateWithSigningSubkey("Sub <s@example.test>");
    private static final TestPgpKey stranger = TestPgpKey.generate("Stranger <x@example.test>");
    private static final Map<TestPgpKey.Flaw, TestPgpKey> flawed = new java.util.EnumMap<>(TestPgpKey.Flaw.class);

    static {
        for (TestPgpKey.Flaw flaw : TestPgpKey.Flaw.values()) {
            flawed.put(flaw, TestPgpKey.generateFlawed("Flawed <f@example.test>", flaw));
        }
    }

    @Test
    void acceptsABinaryDetachedSignature() {
        String keyId =
                VerifyNow.signature(SUMS, primaryOnly.signDetached(SUMS), List.of(primaryOnly.armoredPublicKey()));
        assertThat(keyId).isEqualTo(primaryOnly.signingKeyId());
    }

    @Test
    void acceptsAnArmoredDetachedSignature() {
        assertThat(VerifyNow.signature(
                        SUMS, primaryOnly.signDetachedArmored(SUMS), List.of(primaryOnly.armoredPublicKey())))
                .isEqualTo(primaryOnly.signingKeyId());
    }

    @Test
    void acceptsASignatureBySigningSubkeyBoundToTheListedKey() {
        assertThat(VerifyNow.signature(
                        SUMS,
                        withSubkey.signDetached(SUMS),
                        List.of(stranger.armoredPublicKey(), withSubkey.armoredPublicKey())))
                .isEqualTo(withSubkey.signingKeyId());
    }

    @Test
    void refusesASignatureByAKeyTheOriginDoesNotList() {
        assertThatThrownBy(() ->
                        VerifyNow.signature(SUMS, stranger.signDetached(SUMS), List.of(primaryOnly.armoredPublicKey())))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining(stranger.signingKeyId());
    }

    @Test
    void refusesATamperedDocument() {
        byte[] signature = primaryOnly.signDetached(SUMS);
        byte[] tampered = SUMS.clone();
        tampered[0] = 'b';
        assertThatThrownBy(() -> VerifyNow.signature(tampered, signature, List.of(primaryOnly.armoredPublicKey())))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("does not verify");
    }

    @Test
    void refusesWhenTheOriginListsNoKeys() {
        assertThatThrownBy(() -> VerifyNow.signature(SUMS, primaryOnly.signDetached(SUMS), List.of()))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("no signing keys");
    }

    @Test
    void refusesGarbageSignaturesAndKeys() {
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS,
                        "not a signature".getBytes(StandardCharsets.UTF_8),
                        List.of(primaryOnly.armoredPublicKey())))
                .isInstanceOf(VerificationException.class);
        assertThatThrownBy(() -> VerifyNow.signature(SUMS, primaryOnly.signDetached(SUMS), List.of("garbage")))
                .isInstanceOf(VerificationException.class);
    }

    @Test
    void pinnedKeysAreTheOnlyOnesUsed() {
        byte[] signature = withSubkey.signDetached(SUMS);
        List<String> listed = List.of(stranger.armoredPublicKey(), withSubkey.armoredPublicKey());
        // The primary's fingerprint, or the signing subkey's ID, pins the key.
        assertThat(VerifyNow.signature(SUMS, signature, listed, Set.of(withSubkey.primaryFingerprint()), "pins"))
                .isEqualTo(withSubkey.signingKeyId());
        assertThat(VerifyNow.signature(SUMS, signature, listed, Set.of(withSubkey.signingKeyId()), "pins"))
                .isEqualTo(withSubkey.signingKeyId());
        // A key the origin lists but the operator did not pin is refused, even when it made a valid signature.
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS,
                        signature,
                        listed,
                        Set.of(stranger.primaryFingerprint()),
                        "upstream.hosts.example.test.trustedKeys"))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("does not verify with any of the origin's 2 signing key(s)");
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS,
                        signature,
                        List.of(withSubkey.armoredPublicKey()),
                        Set.of(stranger.primaryFingerprint()),
                        "upstream.hosts.example.test.trustedKeys"))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("none of the origin's signing keys (" + withSubkey.primaryFingerprint()
                        + ") is among the keys pinned in upstream.hosts.example.test.trustedKeys");
    }

    @Test
    void ofAnArmoredBlockHoldingThePinnedKeyAndAnotherOnlyThePinnedKeyMaySign() {
        // One ascii_armor with the pinned key and a key of the origin's own choosing.
        List<String> listed = List.of(TestPgpKey.armoredTogether(withSubkey, stranger));
        byte[] byStranger = stranger.signDetached(SUMS);
        assertThat(VerifyNow.signature(SUMS, byStranger, listed))
                .as("without a pin, as the CLI: any listed key")
                .isEqualTo(stranger.signingKeyId());
        for (String pin : List.of(withSubkey.primaryFingerprint(), withSubkey.signingKeyId())) {
            assertThatThrownBy(() -> VerifyNow.signature(
                            SUMS, byStranger, listed, Set.of(pin), "upstream.hosts.example.test.trustedKeys"))
                    .as(pin)
                    .isInstanceOf(VerificationException.class)
                    .hasMessageContaining("made by key " + stranger.signingKeyId())
                    .hasMessageContaining("that upstream.hosts.example.test.trustedKeys [" + pin + "] lets sign");
            assertThat(VerifyNow.signature(SUMS, withSubkey.signDetached(SUMS), listed, Set.of(pin), "pins"))
                    .as(pin)
                    .isEqualTo(withSubkey.signingKeyId());
        }
    }

    @Test
    void aKeyRingThatBindsACopyOfThePinnedKeyAsItsSubkeyGivesItsOwnKeysNoRightToSign() {
        // Bound without the sign flag the ring is one the CLI reads, so the pin rule alone keeps its primary out.
        String claiming = stranger.armoredPublicKeyClaiming(primaryOnly, false);
        Set<String> pin = Set.of(primaryOnly.primaryFingerprint());
        assertThatThrownBy(() -> VerifyNow.signature(SUMS, stranger.signDetached(SUMS), List.of(claiming), pin, "pins"))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("does not verify");
        assertThat(VerifyNow.signature(SUMS, stranger.signDetached(SUMS), List.of(claiming)))
                .as("without the pin the stranger's own key signs, as in the CLI")
                .isEqualTo(stranger.signingKeyId());
        assertThatThrownBy(
                        () -> VerifyNow.signature(SUMS, primaryOnly.signDetached(SUMS), List.of(claiming), pin, "pins"))
                .as("the copy is not flagged for signing in the stranger's ring")
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("the subkey " + primaryOnly.signingKeyId() + " is not flagged for signing");
        // Flagged for signing, the copy lacks the back-signature only its owner could make: the CLI ignores the ring.
        String flagged = stranger.armoredPublicKeyClaiming(primaryOnly, true);
        for (TestPgpKey signer : List.of(stranger, primaryOnly)) {
            assertThatThrownBy(
                            () -> VerifyNow.signature(SUMS, signer.signDetached(SUMS), List.of(flagged), pin, "pins"))
                    .isInstanceOf(VerificationException.class)
                    .hasMessageContaining("does not verify");
            assertThatThrownBy(() -> VerifyNow.signature(SUMS, signer.signDetached(SUMS), List.of(flagged)))
                    .isInstanceOf(VerificationException.class)
                    .hasMessageContaining("the signing subkey " + primaryOnly.signingKeyId()
                            + " has no cross-signature (back-signature) from itself, which the CLI requires")
                    .hasMessageContaining("ignores the whole key " + stranger.signingKeyId());
        }
    }

    @Test
    void aSigningSubkeyCountsOnlyFlaggedForSigningAndCrossSignedByItself() {
        Map<TestPgpKey.Flaw, String> reasons = Map.of(
                TestPgpKey.Flaw.SUBKEY_WITHOUT_BACK_SIGNATURE,
                "has no cross-signature (back-signature) from itself, which the CLI requires",
                TestPgpKey.Flaw.SUBKEY_BACK_SIGNED_BY_ANOTHER_KEY,
                "does not verify with the subkey itself, which the CLI requires",
                TestPgpKey.Flaw.SUBKEY_NOT_FLAGGED_FOR_SIGNING,
                "is not flagged for signing (its key flags are 0xc)",
                TestPgpKey.Flaw.SUBKEY_WITHOUT_KEY_FLAGS,
                "carries no key flags in its self-signature or binding");
        reasons.forEach((flaw, reason) -> {
            TestPgpKey key = flawed.get(flaw);
            assertThat(key.signingKeyId())
                    .as(flaw.name())
                    .isNotEqualTo(key.primaryFingerprint().substring(24));
            assertThatThrownBy(() -> VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(key.armoredPublicKey())))
                    .as(flaw.name())
                    .isInstanceOfSatisfying(
                            VerificationException.class,
                            e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                    .hasMessageContaining(key.signingKeyId() + " " + reason.split(" ", 2)[0])
                    .hasMessageContaining(reason);
            assertThatThrownBy(() -> VerifyNow.signature(
                            SUMS,
                            key.signDetached(SUMS),
                            List.of(key.armoredPublicKey()),
                            Set.of(key.primaryFingerprint()),
                            "pins"))
                    .as(flaw.name() + ", pinned")
                    .isInstanceOf(VerificationException.class)
                    .hasMessageContaining(reason);
        });
    }

    @Test
    void aPrimaryKeySignsOnlyWhenItsSelfSignatureFlagsItForSigning() {
        Map<TestPgpKey.Flaw, String> reasons = Map.of(
                TestPgpKey.Flaw.PRIMARY_WITHOUT_KEY_FLAGS,
                "carries no key flags in its self-signature or binding, so the CLI does not let it sign",
                TestPgpKey.Flaw.PRIMARY_NOT_FLAGGED_FOR_SIGNING,
                "is not flagged for signing (its key flags are 0x1), so the CLI does not let it sign");
        reasons.forEach((flaw, reason) -> {
            TestPgpKey key = flawed.get(flaw);
            assertThat(key.primaryFingerprint()).as(flaw.name()).endsWith(key.signingKeyId());
            assertThatThrownBy(() -> VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(key.armoredPublicKey())))
                    .as(flaw.name())
                    .isInstanceOf(VerificationException.class)
                    .hasMessageContaining("the primary key " + key.signingKeyId() + " " + reason);
        });
    }

    @Test
    void anRsaKeyWhosePublicExponentIsLongerThanThreeBytesIsReadAsTheCliReadsIt() {
        for (TestPgpKey.Flaw flaw :
                List.of(TestPgpKey.Flaw.PRIMARY_LARGE_RSA_EXPONENT, TestPgpKey.Flaw.SUBKEY_LARGE_RSA_EXPONENT)) {
            TestPgpKey key = flawed.get(flaw);
            String which = flaw == TestPgpKey.Flaw.PRIMARY_LARGE_RSA_EXPONENT ? "key " : "subkey ";
            assertThatThrownBy(() -> VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(key.armoredPublicKey())))
                    .as(flaw.name())
                    .isInstanceOfSatisfying(
                            VerificationException.class,
                            e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                    .hasMessageContaining("the " + which + key.signingKeyId()
                            + " has an RSA public exponent of 33 bits, longer than the 3 bytes the CLI's OpenPGP"
                            + " library reads")
                    .hasMessageContaining("ignores the whole key");
        }
        // A key of 3 bytes' exponent (65537, as every key here) signs.
        assertThat(VerifyNow.signature(SUMS, withSubkey.signDetached(SUMS), List.of(withSubkey.armoredPublicKey())))
                .isEqualTo(withSubkey.signingKeyId());
    }

    @Test
    void aRevokedKeySignsNothing() {
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS, primaryOnly.signDetached(SUMS), List.of(primaryOnly.armoredPublicKeyRevokingSigner())))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("the key " + primaryOnly.signingKeyId() + " is revoked");
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS, withSubkey.signDetached(SUMS), List.of(withSubkey.armoredPublicKeyRevokingSigner())))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("the subkey " + withSubkey.signingKeyId() + " is revoked");
    }

    @Test
    void aKeyWhoseOnlyUserIdIsRevokedSignsNothing() {
        // go-crypto v1.0.0 (checkSignatureDetails) refuses with ErrKeyRevoked when the primary identity is revoked;
        // a key with one user ID has no other to prefer. The revocation is made when the key was (an hour ago).
        java.time.Instant made = java.time.Instant.now().minus(TestPgpKey.BACKDATED);
        for (TestPgpKey key : List.of(primaryOnly, withSubkey)) {
            String primaryKeyId = key.primaryFingerprint().substring(24);
            assertThatThrownBy(() -> VerifyNow.signature(
                            SUMS, key.signDetached(SUMS), List.of(key.armoredPublicKeyRevokingUserId(made))))
                    .isInstanceOfSatisfying(
                            VerificationException.class,
                            e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                    .hasMessageContaining("the signature over SHA256SUMS by " + key.signingKeyId() + " verifies")
                    .hasMessageContaining("the primary user ID of the key " + primaryKeyId + " is revoked");
            assertThat(VerifyNow.signature(SUMS, key.signDetached(SUMS), List.of(key.armoredPublicKey())))
                    .as("the same key without the revocation")
                    .isEqualTo(key.signingKeyId());
        }
    }

    @Test
    void keysMadeByGnuPgVerifyTheirOwnSignatures() throws IOException {
        // Made by GnuPG 2.2.40 (see gnupg-keys/README.md): an ed25519 primary key that signs, and an RSA key whose
        // signing subkey is cross-signed, as GnuPG always makes them.
        byte[] sums = fixture("SHA256SUMS");
        assertThat(VerifyNow.signature(
                        sums,
                        fixture("SHA256SUMS.primary-signer.sig"),
                        List.of(new String(fixture("primary-signer.asc"), StandardCharsets.US_ASCII))))
                .isEqualTo("EC73EFEB157526B4");
        assertThat(VerifyNow.signature(
                        sums,
                        fixture("SHA256SUMS.subkey-signer.sig"),
                        List.of(new String(fixture("subkey-signer.asc"), StandardCharsets.US_ASCII)),
                        Set.of("E9D300966AAD2748"),
                        "pins"))
                .isEqualTo("738560500F8FF4A3");
    }

    private static byte[] fixture(String name) throws IOException {
        try (InputStream in = OpenPgpSignaturesTest.class.getResourceAsStream("/gnupg-keys/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void aVersion3KeyForgedToCarryAPinnedKeyIdSignsNothing() {
        // A v3 key ID is the low 64 bits of the RSA modulus: anyone can make a key with HashiCorp's key ID.
        String hashicorp = "34365D9472D7468F";
        TestPgpKey forged = TestPgpKey.forgeV3(hashicorp);
        assertThat(forged.signingKeyId()).isEqualTo(hashicorp);
        List<String> listed = List.of(forged.armoredPublicKey());
        byte[] signature = forged.signDetachedV3(SUMS);
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS, signature, listed, Set.of(hashicorp), "upstream.hosts.registry.terraform.io.trustedKeys"))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("version 3");
        assertThatThrownBy(() -> VerifyNow.signature(SUMS, signature, listed))
                .as("nor without a pin, as the CLI, which reads no v3 key")
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("version 3");
        // A v3 signature by a genuine v4 key is refused too.
        assertThatThrownBy(() -> VerifyNow.signature(
                        SUMS, primaryOnly.signDetachedV3(SUMS), List.of(primaryOnly.armoredPublicKey())))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("version 3");
    }

    @Test
    void policiesNormalisePinsAndRefuseWhatIsNotAKey() {
        assertThat(new SignaturePolicy(false, Set.of("c874 011f 0ab4 0511 0d02 1055 3436 5d94 72d7 468f"))
                        .trustedKeys())
                .containsExactly("C874011F0AB405110D02105534365D9472D7468F");
        assertThatThrownBy(() -> new SignaturePolicy(false, Set.of("HashiCorp")))
                .hasMessageContaining("'HashiCorp'");
        assertThat(SignaturePolicy.defaultFor("registry.opentofu.org").allowUnsigned())
                .isTrue();
        assertThat(SignaturePolicy.defaultFor("registry.terraform.io").allowUnsigned())
                .isFalse();
    }

    @Test
    void theKeyIdPinsOfAPolicyAreTheOnesStartUpWarnsAbout() {
        SignaturePolicy policy = new SignaturePolicy(
                false,
                Set.of(
                        "34365d9472d7468f",
                        "C874011F0AB405110D02105534365D9472D7468F",
                        "0x72D7468F34365D94",
                        "c874011f0ab405110d02105534365d9472d7468fc874011f0ab40511" + "0d021055"));
        assertThat(policy.keyIdPins()).containsExactly("34365D9472D7468F", "72D7468F34365D94");
        assertThat(new SignaturePolicy(false, Set.of("C874011F0AB405110D02105534365D9472D7468F")).keyIdPins())
                .isEmpty();
    }
}
