package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.PublicSubkeyPacket;
import org.bouncycastle.bcpg.sig.KeyFlags;
import org.bouncycastle.crypto.generators.RSAKeyPairGenerator;
import org.bouncycastle.crypto.params.RSAKeyGenerationParameters;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPKeyPair;
import org.bouncycastle.openpgp.PGPKeyRingGenerator;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureGenerator;
import org.bouncycastle.openpgp.PGPSignatureSubpacketGenerator;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentSignerBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPDigestCalculatorProvider;
import org.bouncycastle.openpgp.operator.bc.BcPGPKeyPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CLI's rules for key rings, one rule at a time, on rings put together signature by signature: which rings its
 * OpenPGP library drops whole, which key of a ring may sign, which user ID's self-signature it reads a primary key's
 * flags from, and what revokes a key. The keys are made once per JVM; every signature is made by the test.
 */
final class SigningKeyRulesTest {

    /** These rules read no dates but to find the newest signature; every signature is made minutes after this. */
    private static final Instant KEYS_MADE = Instant.parse("2025-01-01T00:00:00Z");

    private static final PGPKeyPair PRIMARY = rsa();
    private static final PGPKeyPair SUB = rsa();
    private static final PGPKeyPair OTHER = rsa();
    /** SUB as a subkey of PRIMARY, without any signature on it. */
    private static final PGPPublicKey BARE_SUBKEY = bareSubkey();

    private static final String PRIMARY_ID = SigningKeyRules.keyId(PRIMARY.getKeyID());
    private static final String SUB_ID = SigningKeyRules.keyId(SUB.getKeyID());
    private static final int SIGN = KeyFlags.SIGN_DATA;
    private static final int CERTIFY = KeyFlags.CERTIFY_OTHER;
    private static final int ENCRYPT = KeyFlags.ENCRYPT_COMMS | KeyFlags.ENCRYPT_STORAGE;

    @Test
    void aRingMadeAsGnuPgMakesThemIsReadAndItsSigningSubkeySigns() {
        PGPPublicKeyRing ring = ring(primaryWith("Key <k@example.test>", CERTIFY), signingSubkey(1));

        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, subkey(ring))).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, ring.getPublicKey()))
                .hasValue("the primary key " + PRIMARY_ID + " is not flagged for signing (its key flags are 0x1), so"
                        + " the CLI does not let it sign");
        assertThat(SigningKeyRules.whyRevoked(ring, subkey(ring))).isEmpty();
        assertThat(SigningKeyRules.whyRevoked(ring, ring.getPublicKey())).isEmpty();
    }

    @Test
    void aKeyRevocationCountsOnlyWhenItVerifiesWithTheKey() {
        PGPPublicKey primary = primaryWith("Key <k@example.test>", SIGN);
        PGPPublicKeyRing forged =
                ring(PGPPublicKey.addCertification(primary, direct(OTHER, PGPSignature.KEY_REVOCATION, primary)));
        PGPPublicKeyRing revoked =
                ring(PGPPublicKey.addCertification(primary, direct(PRIMARY, PGPSignature.KEY_REVOCATION, primary)));

        assertThat(SigningKeyRules.whyUnreadable(forged))
                .hasValue("the key " + PRIMARY_ID + " carries a revocation that does not verify with it; the CLI's"
                        + " OpenPGP library ignores the whole key " + PRIMARY_ID);
        assertThat(SigningKeyRules.whyUnreadable(revoked)).isEmpty();
        assertThat(SigningKeyRules.whyRevoked(revoked, revoked.getPublicKey()))
                .hasValue("the key " + PRIMARY_ID + " is revoked");
    }

    @ParameterizedTest
    @ValueSource(
            ints = {
                PGPSignature.DEFAULT_CERTIFICATION,
                PGPSignature.NO_CERTIFICATION,
                PGPSignature.CASUAL_CERTIFICATION,
                PGPSignature.POSITIVE_CERTIFICATION
            })
    void everyKindOfCertificationIsASelfSignatureOfAUserId(int type) {
        PGPPublicKeyRing ring = ring(withUserId(
                PRIMARY.getPublicKey(),
                "Key <k@example.test>",
                certification(PRIMARY, type, "Key <k@example.test>", 0, SIGN, false)));

        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, ring.getPublicKey())).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {PGPSignature.DIRECT_KEY, PGPSignature.SUBKEY_BINDING, PGPSignature.BINARY_DOCUMENT})
    void aSignatureOnAUserIdThatIsNoCertificationMakesTheRingUnreadable(int type) {
        PGPPublicKey primary = primaryWith("Key <k@example.test>", SIGN);
        PGPPublicKeyRing ring = ring(withUserId(
                primary, "Key <k@example.test>", certification(PRIMARY, type, "Key <k@example.test>", 1, SIGN, false)));

        assertThat(SigningKeyRules.whyUnreadable(ring))
                .hasValue("a signature on a user ID of the key " + PRIMARY_ID + " is of type " + type
                        + ", not a certification; the CLI's OpenPGP library ignores the whole key " + PRIMARY_ID);
    }

    @Test
    void aSelfSignatureThatDoesNotVerifyMakesTheRingUnreadable() {
        // Made by the primary key, so its issuer is the primary key, but over another user ID.
        PGPSignature misplaced = certification(
                PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, "Someone else <x@example.test>", 0, SIGN, false);
        PGPPublicKeyRing ring = ring(withUserId(PRIMARY.getPublicKey(), "Key <k@example.test>", misplaced));

        assertThat(SigningKeyRules.whyUnreadable(ring))
                .hasValue("a self-signature on the user ID \"Key <k@example.test>\" of the key " + PRIMARY_ID
                        + " does not verify; the CLI's OpenPGP library ignores the whole key " + PRIMARY_ID);
    }

    @Test
    void aCertificationByAnotherKeyIsNeitherCheckedNorReadForFlags() {
        // A newer certification by someone else, flagged for certifying only, and one that would not verify with
        // the primary key: neither makes the ring unreadable, and the primary key's own self-signature decides.
        PGPPublicKey primary = primaryWith("Key <k@example.test>", SIGN);
        PGPPublicKeyRing ring = ring(withUserId(
                primary,
                "Key <k@example.test>",
                certification(OTHER, PGPSignature.POSITIVE_CERTIFICATION, "Key <k@example.test>", 5, CERTIFY, true)));

        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, ring.getPublicKey())).isEmpty();
    }

    @Test
    void aRingWhoseUserIdsCarryNoSelfSignatureIsUnreadable() {
        PGPPublicKeyRing certifiedByOthersOnly = ring(withUserId(
                PRIMARY.getPublicKey(),
                "Key <k@example.test>",
                certification(OTHER, PGPSignature.POSITIVE_CERTIFICATION, "Key <k@example.test>", 0, SIGN, false)));
        PGPPublicKeyRing withoutUserId = ring(PRIMARY.getPublicKey());

        for (PGPPublicKeyRing ring : List.of(certifiedByOthersOnly, withoutUserId)) {
            assertThat(SigningKeyRules.whyUnreadable(ring))
                    .hasValue("the key " + PRIMARY_ID + " has no user ID with a self-signature, which the CLI"
                            + " requires; the CLI's OpenPGP library ignores the whole key " + PRIMARY_ID);
            assertThat(SigningKeyRules.selfSignature(ring, ring.getPublicKey())).isEmpty();
        }
    }

    @Test
    void aSubkeySignatureThatIsNeitherABindingNorARevocationMakesTheRingUnreadable() {
        PGPPublicKey subkey = PGPPublicKey.addCertification(
                signingSubkey(0),
                sign(PRIMARY, PGPSignature.DIRECT_KEY, 1, null, false, List.of())
                        .generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY));

        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), subkey)))
                .hasValue("the subkey " + SUB_ID + " carries a signature of type 31, neither a binding nor a"
                        + " revocation; the CLI's OpenPGP library ignores the whole key " + PRIMARY_ID);
    }

    @Test
    void aSubkeyBindingOrRevocationMustVerifyWithThePrimaryKey() {
        PGPPublicKey boundByOther = PGPPublicKey.addCertification(
                BARE_SUBKEY, binding(OTHER, 0, SIGN, false, List.of(backSignature(SUB, 0))));
        PGPPublicKey revokedByOther = PGPPublicKey.addCertification(
                signingSubkey(0),
                sign(OTHER, PGPSignature.SUBKEY_REVOCATION, 1, null, false, List.of())
                        .generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY));
        String reason = "a binding or revocation of the subkey " + SUB_ID + " does not verify with its primary key "
                + PRIMARY_ID + "; the CLI's OpenPGP library ignores the whole key " + PRIMARY_ID;

        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), boundByOther)))
                .hasValue(reason);
        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), revokedByOther)))
                .hasValue(reason);
    }

    @Test
    void aSubkeyWithoutABindingMakesTheRingUnreadable() {
        PGPPublicKey revokedOnly = PGPPublicKey.addCertification(
                BARE_SUBKEY,
                sign(PRIMARY, PGPSignature.SUBKEY_REVOCATION, 1, null, false, List.of())
                        .generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY));
        String reason = "the subkey " + SUB_ID + " has no binding signature; the CLI's OpenPGP library ignores the"
                + " whole key " + PRIMARY_ID;

        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), revokedOnly)))
                .hasValue(reason);
        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), BARE_SUBKEY)))
                .hasValue(reason);
    }

    @Test
    void aRevokedSubkeyIsReadButRevoked() {
        PGPPublicKey revoked = PGPPublicKey.addCertification(
                signingSubkey(0),
                sign(PRIMARY, PGPSignature.SUBKEY_REVOCATION, 1, null, false, List.of())
                        .generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY));
        PGPPublicKeyRing ring = ring(primaryWith("Key <k@example.test>", CERTIFY), revoked);

        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyRevoked(ring, subkey(ring))).hasValue("the subkey " + SUB_ID + " is revoked");
        assertThat(SigningKeyRules.whyRevoked(ring, ring.getPublicKey()))
                .as("the primary key is not revoked with its subkey")
                .isEmpty();
    }

    @Test
    void aSigningSubkeysBackSignatureIsOneSignatureOfTheRightTypeAndMayStandInTheUnhashedArea() {
        PGPSignature back = backSignature(SUB, 0);
        PGPSignature wrongType = sign(SUB, PGPSignature.SUBKEY_BINDING, 0, null, false, List.of())
                .generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY);
        PGPPublicKey twice =
                PGPPublicKey.addCertification(BARE_SUBKEY, binding(PRIMARY, 0, SIGN, false, List.of(back, back)));
        PGPPublicKey ofWrongType =
                PGPPublicKey.addCertification(BARE_SUBKEY, binding(PRIMARY, 0, SIGN, false, List.of(wrongType)));
        PGPPublicKey unhashed =
                PGPPublicKey.addCertification(BARE_SUBKEY, binding(PRIMARY, 0, SIGN, true, List.of(back)));
        String ignored = "; the CLI's OpenPGP library ignores the whole key " + PRIMARY_ID;

        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), twice)))
                .hasValue("the binding of the signing subkey " + SUB_ID + " carries more than one embedded signature"
                        + ignored);
        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWith("Key <k@example.test>", CERTIFY), ofWrongType)))
                .hasValue("the cross-signature of the signing subkey " + SUB_ID + " is of type 24, not a primary key"
                        + " binding" + ignored);
        PGPPublicKeyRing ring = ring(primaryWith("Key <k@example.test>", CERTIFY), unhashed);
        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, subkey(ring))).isEmpty();
    }

    @Test
    void aSubkeyNotFlaggedForSigningNeedsNoBackSignature() {
        PGPPublicKey encrypting =
                PGPPublicKey.addCertification(BARE_SUBKEY, binding(PRIMARY, 0, ENCRYPT, false, List.of()));
        PGPPublicKeyRing ring = ring(primaryWith("Key <k@example.test>", CERTIFY), encrypting);

        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, subkey(ring)))
                .hasValue("the subkey " + SUB_ID + " is not flagged for signing (its key flags are 0xc), so the CLI"
                        + " does not let it sign");
    }

    @Test
    void theNewestBindingOfASubkeyDecidesWhetherItSigns() {
        PGPSignature signing = binding(PRIMARY, 1, SIGN, false, List.of(backSignature(SUB, 1)));
        PGPSignature encrypting = binding(PRIMARY, 2, ENCRYPT, false, List.of());
        PGPSignature newerSigning = binding(PRIMARY, 3, SIGN, false, List.of(backSignature(SUB, 3)));

        PGPPublicKeyRing nowEncrypting = ring(
                primaryWith("Key <k@example.test>", CERTIFY),
                PGPPublicKey.addCertification(PGPPublicKey.addCertification(BARE_SUBKEY, signing), encrypting));
        PGPPublicKeyRing signingAgain = ring(
                primaryWith("Key <k@example.test>", CERTIFY),
                PGPPublicKey.addCertification(PGPPublicKey.addCertification(BARE_SUBKEY, newerSigning), encrypting));

        assertThat(SigningKeyRules.whyNotSigning(nowEncrypting, subkey(nowEncrypting)))
                .hasValueSatisfying(
                        why -> assertThat(why).contains("is not flagged for signing (its key flags are 0xc)"));
        assertThat(SigningKeyRules.selfSignature(nowEncrypting, subkey(nowEncrypting)))
                .hasValue(encrypting);
        assertThat(SigningKeyRules.whyNotSigning(signingAgain, subkey(signingAgain)))
                .isEmpty();
        assertThat(SigningKeyRules.selfSignature(signingAgain, subkey(signingAgain)))
                .hasValue(newerSigning);
    }

    @Test
    void theNewestSelfSignatureOfAUserIdDecidesThePrimaryKeysFlags() {
        String id = "Key <k@example.test>";
        PGPSignature older = certification(PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, id, 1, SIGN, false);
        PGPSignature newer = certification(PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, id, 2, CERTIFY, false);

        for (List<PGPSignature> order : List.of(List.of(older, newer), List.of(newer, older))) {
            PGPPublicKeyRing ring =
                    ring(withUserId(withUserId(PRIMARY.getPublicKey(), id, order.get(0)), id, order.get(1)));
            assertThat(SigningKeyRules.selfSignature(ring, ring.getPublicKey())).hasValue(newer);
            assertThat(SigningKeyRules.whyNotSigning(ring, ring.getPublicKey()))
                    .hasValueSatisfying(why -> assertThat(why).contains("its key flags are 0x1"));
        }
    }

    /** Which of two user IDs the CLI reads the primary key's flags from, whichever of them the ring lists first. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theUserIdWithFewerRevocationsThenThePrimaryFlagThenTheNewestSelfSignatureIsThePrimaryIdentity(
            boolean reversed) {
        String a = "A <a@example.test>";
        String b = "B <b@example.test>";

        // Newest wins when neither is flagged primary.
        assertSigns(reversed, true, uid(a, 2, SIGN, false), uid(b, 1, CERTIFY, false));
        assertSigns(reversed, false, uid(a, 1, SIGN, false), uid(b, 2, CERTIFY, false));
        // The primary user ID flag wins over the newest.
        assertSigns(reversed, true, uid(a, 1, SIGN, true), uid(b, 2, CERTIFY, false));
        assertSigns(reversed, false, uid(a, 2, SIGN, false), uid(b, 1, CERTIFY, true));
        // Fewer revocations win over the primary user ID flag and the newest.
        UserId revokedA = uid(a, 2, SIGN, true).revoked(3);
        assertSigns(reversed, false, revokedA, uid(b, 1, CERTIFY, false));
        PGPPublicKeyRing ring = twoUserIds(reversed, revokedA, uid(b, 1, CERTIFY, false));
        assertThat(SigningKeyRules.whyRevoked(ring, ring.getPublicKey()))
                .as("a revoked user ID beside one that is not revoked revokes nothing")
                .isEmpty();
        PGPPublicKeyRing bothRevoked =
                twoUserIds(reversed, revokedA, uid(b, 1, CERTIFY, false).revoked(4));
        assertThat(SigningKeyRules.whyRevoked(bothRevoked, bothRevoked.getPublicKey()))
                .hasValue("the primary user ID of the key " + PRIMARY_ID + " is revoked");
        // As many revocations on each: the primary user ID flag decides again; more revocations lose.
        assertSigns(reversed, true, revokedA, uid(b, 1, CERTIFY, false).revoked(5));
        assertSigns(
                reversed, false, revokedA.revoked(4), uid(b, 1, CERTIFY, false).revoked(5));
    }

    /**
     * A verification checks at most {@link SignatureChecks#LIMIT} signatures of the origin's keys: a ring with that
     * many self-signatures is read, one with a single more is refused before its last is checked, and certifications
     * by other keys, which are never checked, count for nothing.
     */
    @Test
    void aRingWithMoreSelfSignaturesThanAVerificationChecksIsRefused() {
        assertThat(SigningKeyRules.whyUnreadable(ring(primaryWithSelfSignatures(SignatureChecks.LIMIT, 300))))
                .isEmpty();

        PGPPublicKeyRing tooMany = ring(primaryWithSelfSignatures(SignatureChecks.LIMIT + 1, 0));
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(tooMany))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining("more than " + SignatureChecks.LIMIT + " signatures to check");
    }

    /** Key revocations, subkey bindings and back-signatures are counted as self-signatures are. */
    @Test
    void revocationsBindingsAndBackSignaturesCountAsChecks() {
        PGPPublicKey revoked = primaryWith("Key <k@example.test>", CERTIFY);
        for (int i = 0; i < SignatureChecks.LIMIT; i++) {
            revoked = PGPPublicKey.addCertification(revoked, direct(PRIMARY, PGPSignature.KEY_REVOCATION, revoked));
        }
        PGPPublicKeyRing revokedOften = ring(revoked);
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(revokedOften))
                .as("one self-signature and %d revocations", SignatureChecks.LIMIT)
                .hasMessageContaining("more than " + SignatureChecks.LIMIT + " signatures to check");

        PGPPublicKey subkey = BARE_SUBKEY;
        for (int minutes = 1; minutes <= SignatureChecks.LIMIT / 2; minutes++) {
            subkey = PGPPublicKey.addCertification(
                    subkey, binding(PRIMARY, minutes, SIGN, false, List.of(backSignature(SUB, minutes))));
        }
        PGPPublicKeyRing boundOften = ring(primaryWith("Key <k@example.test>", CERTIFY), subkey);
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(boundOften))
                .as("one self-signature, %d bindings and as many back-signatures", SignatureChecks.LIMIT / 2)
                .hasMessageContaining("more than " + SignatureChecks.LIMIT + " signatures to check");
    }

    /**
     * The count is one per verification, over every ring it reads, not one per ring; a ring it judged already is
     * not checked, nor counted, again.
     */
    @Test
    void theChecksOfOneVerificationAreCountedOverAllTheRingsItReads() {
        PGPPublicKeyRing half = ring(primaryWithSelfSignatures(SignatureChecks.LIMIT / 2 + 1, 0));
        PGPPublicKeyRing otherHalf = ring(primaryWithSelfSignatures(SignatureChecks.LIMIT / 2 + 1, 0));
        SignatureChecks checks = new SignatureChecks();

        assertThat(SigningKeyRules.whyUnreadable(half, checks)).isEmpty();
        assertThat(SigningKeyRules.whyUnreadable(half, checks))
                .as("judged already")
                .isEmpty();
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(otherHalf, checks))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("more than " + SignatureChecks.LIMIT);
        assertThat(SigningKeyRules.whyUnreadable(otherHalf, new SignatureChecks()))
                .isEmpty();
    }

    /**
     * A verification with pinned keys walks the origin's keys twice (any key, then the pinned ones) and judges each
     * ring once: a pinned key needing more than half the checks a verification makes verifies as it does unpinned.
     */
    @Test
    void aPinnedVerificationJudgesEachRingOnce() throws Exception {
        byte[] signature = signedBySub(SUMS);
        PGPPublicKey primary = primaryWithSelfSignatures(SignatureChecks.LIMIT / 2 + 10, 0);
        String key = armored(ring(primary, signingSubkey(1)));
        String pin = java.util.HexFormat.of().withUpperCase().formatHex(primary.getFingerprint());

        assertThat(OpenPgpSignatures.verify(SUMS, signature, List.of(key), Set.of(), "pins", VERIFIED_AT))
                .isEqualTo(SUB_ID);
        assertThat(OpenPgpSignatures.verify(SUMS, signature, List.of(key), Set.of(pin), "pins", VERIFIED_AT))
                .isEqualTo(SUB_ID);
    }

    /**
     * The verification of a SHA256SUMS signature refuses an origin whose key asks for more checks than it makes,
     * naming why, where the same key with a few self-signatures verifies it.
     */
    @Test
    void aVerificationRefusesAKeyWithMoreSelfSignaturesThanItChecks() throws Exception {
        byte[] document = SUMS;
        byte[] signature = signedBySub(SUMS);
        Instant at = VERIFIED_AT;
        String honest = armored(ring(primaryWithSelfSignatures(3, 0), signingSubkey(1)));
        String tooMany = armored(ring(primaryWithSelfSignatures(SignatureChecks.LIMIT, 0), signingSubkey(1)));

        assertThat(OpenPgpSignatures.verify(document, signature, List.of(honest), Set.of(), "pins", at))
                .isEqualTo(SUB_ID);
        assertThatThrownBy(() -> OpenPgpSignatures.verify(document, signature, List.of(tooMany), Set.of(), "pins", at))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining("more than " + SignatureChecks.LIMIT + " signatures to check");
    }

    /**
     * A key ring of more than {@link SignatureChecks#MAX_USER_IDS} user IDs or {@link SignatureChecks#MAX_SUBKEYS}
     * subkeys is refused before anything else of it is read: walking its user IDs grows with their number squared.
     */
    @Test
    void aRingWithMoreUserIdsOrSubkeysThanTheMirrorReadsIsRefusedBeforeItIsRead() throws Exception {
        PGPPublicKey primary = PRIMARY.getPublicKey();
        for (int i = 0; i < SignatureChecks.MAX_USER_IDS; i++) {
            String userId = "Key " + i + " <k@example.test>";
            primary = withUserId(
                    primary,
                    userId,
                    certification(PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, userId, i, CERTIFY, false));
        }
        assertThat(SigningKeyRules.whyUnreadable(ring(primary)))
                .as("as many as it reads")
                .isEmpty();
        String more = "Key <more@example.test>";
        PGPPublicKeyRing tooManyUserIds = ring(withUserId(
                primary, more, certification(PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, more, 0, CERTIFY, false)));
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(tooManyUserIds))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("more than " + SignatureChecks.MAX_USER_IDS + " user IDs");

        List<PGPPublicKey> keys = new ArrayList<>(List.of(primaryWith("Key <k@example.test>", CERTIFY)));
        for (int i = 0; i <= SignatureChecks.MAX_SUBKEYS; i++) {
            // The same key material made at another second is another subkey (its fingerprint covers the time).
            keys.add(new PGPPublicKey(
                    new PublicSubkeyPacket(
                            PublicKeyPacket.VERSION_4,
                            SUB.getPublicKey().getAlgorithm(),
                            Date.from(KEYS_MADE.plusSeconds(i)),
                            SUB.getPublicKey().getPublicKeyPacket().getKey()),
                    new BcKeyFingerprintCalculator()));
        }
        PGPPublicKeyRing tooManySubkeys = new PGPPublicKeyRing(keys);
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(tooManySubkeys))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("more than " + SignatureChecks.MAX_SUBKEYS + " subkeys");
    }

    /**
     * A key ring of more than {@link SignatureChecks#MAX_SIGNATURES} signatures of any kind is refused before any is
     * looked at, certifications by other keys (never checked) included: each walk over a user ID's signatures, which
     * the search for a signature's key repeats per signature, went over all of them.
     */
    @Test
    void aRingWithMoreSignaturesThanTheMirrorReadsIsRefused() {
        String userId = "Key <k@example.test>";
        PGPSignature byOther = certification(OTHER, PGPSignature.DEFAULT_CERTIFICATION, userId, 0, CERTIFY, false);
        PGPPublicKey primary = primaryWith(userId, CERTIFY);
        for (int i = 1; i < SignatureChecks.MAX_SIGNATURES; i++) {
            primary = withUserId(primary, userId, byOther);
        }
        assertThat(SigningKeyRules.whyUnreadable(ring(primary)))
                .as("as many as it reads")
                .isEmpty();
        PGPPublicKeyRing tooMany = ring(withUserId(primary, userId, byOther));
        assertThatThrownBy(() -> SigningKeyRules.whyUnreadable(tooMany))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("more than " + SignatureChecks.MAX_SIGNATURES + " signatures");
    }

    /** A signature file of more than {@link SignatureChecks#MAX_DETACHED} signatures is refused. */
    @Test
    void aSignatureFileOfMoreSignaturesThanTheMirrorReadsIsRefused() throws Exception {
        byte[] document = SUMS;
        byte[] one = signedBySub(SUMS);
        Instant at = VERIFIED_AT;
        List<String> keys = List.of(armored(ring(primaryWithSelfSignatures(1, 0), signingSubkey(1))));
        java.io.ByteArrayOutputStream most = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < SignatureChecks.MAX_DETACHED; i++) {
            most.write(one);
        }
        assertThat(OpenPgpSignatures.verify(document, most.toByteArray(), keys, Set.of(), "pins", at))
                .isEqualTo(SUB_ID);
        most.write(one);
        assertThatThrownBy(() -> OpenPgpSignatures.verify(document, most.toByteArray(), keys, Set.of(), "pins", at))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("holds more than " + SignatureChecks.MAX_DETACHED + " signatures");
    }

    /** A SHA256SUMS document for the verifications below, and when they judge it. */
    private static final byte[] SUMS =
            "0123  terraform-provider-a_1.0.0_linux_amd64.zip\n".getBytes(StandardCharsets.US_ASCII);

    private static final Instant VERIFIED_AT = KEYS_MADE.plus(Duration.ofDays(1));

    /** A detached signature of {@code document} by SUB, made 5 minutes after the keys, encoded. */
    private static byte[] signedBySub(byte[] document) throws java.io.IOException {
        return sign(SUB, PGPSignature.BINARY_DOCUMENT, 5, null, false, List.of())
                .generateOver(document)
                .getEncoded();
    }

    /**
     * The primary key with one user ID carrying {@code own} positive self-signatures flagged for certifying (a
     * minute apart) and {@code others} certifications by another key.
     */
    private static PGPPublicKey primaryWithSelfSignatures(int own, int others) {
        String userId = "Key <k@example.test>";
        PGPPublicKey key = PRIMARY.getPublicKey();
        for (int minute = 0; minute < own; minute++) {
            key = withUserId(
                    key,
                    userId,
                    certification(PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, userId, minute, CERTIFY, false));
        }
        for (int minute = 0; minute < others; minute++) {
            key = withUserId(
                    key,
                    userId,
                    certification(OTHER, PGPSignature.DEFAULT_CERTIFICATION, userId, minute, CERTIFY, false));
        }
        return key;
    }

    private static String armored(PGPPublicKeyRing ring) throws java.io.IOException {
        return PgpBytes.armored(ring.getEncoded());
    }

    private static void assertSigns(boolean reversed, boolean signs, UserId a, UserId b) {
        PGPPublicKeyRing ring = twoUserIds(reversed, a, b);
        assertThat(SigningKeyRules.whyUnreadable(ring)).isEmpty();
        assertThat(SigningKeyRules.whyNotSigning(ring, ring.getPublicKey()).isEmpty())
                .as("%s%s, %s", reversed ? "reversed: " : "", a, b)
                .isEqualTo(signs);
    }

    private static PGPPublicKeyRing twoUserIds(boolean reversed, UserId a, UserId b) {
        List<UserId> ids = reversed ? List.of(b, a) : List.of(a, b);
        PGPPublicKey key = PRIMARY.getPublicKey();
        for (UserId id : ids) {
            for (PGPSignature signature : id.signatures()) {
                key = withUserId(key, id.name(), signature);
            }
        }
        return ring(key);
    }

    private static UserId uid(String name, int minutes, int flags, boolean primaryFlag) {
        return new UserId(
                name,
                List.of(certification(
                        PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, name, minutes, flags, primaryFlag)));
    }

    /** A user ID with its signatures by the primary key. */
    private record UserId(String name, List<PGPSignature> signatures) {
        UserId revoked(int minutes) {
            List<PGPSignature> more = new ArrayList<>(signatures);
            more.add(sign(PRIMARY, PGPSignature.CERTIFICATION_REVOCATION, minutes, null, false, List.of())
                    .generateCertificationUnchecked(name, PRIMARY.getPublicKey()));
            return new UserId(name, more);
        }

        @Override
        public String toString() {
            return name + " (" + signatures.size() + " signatures)";
        }
    }

    // ---- building rings ----

    private static PGPKeyPair rsa() {
        RSAKeyPairGenerator generator = new RSAKeyPairGenerator();
        generator.init(new RSAKeyGenerationParameters(BigInteger.valueOf(0x10001), new SecureRandom(), 1024, 12));
        try {
            return new BcPGPKeyPair(
                    PublicKeyPacket.VERSION_4,
                    PublicKeyAlgorithmTags.RSA_GENERAL,
                    generator.generateKeyPair(),
                    Date.from(KEYS_MADE));
        } catch (PGPException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PGPPublicKey bareSubkey() {
        try {
            PGPKeyRingGenerator rings = new PGPKeyRingGenerator(
                    PGPSignature.POSITIVE_CERTIFICATION,
                    PRIMARY,
                    "Key <k@example.test>",
                    new BcPGPDigestCalculatorProvider().get(HashAlgorithmTags.SHA1),
                    null,
                    null,
                    new BcPGPContentSignerBuilder(PublicKeyAlgorithmTags.RSA_GENERAL, HashAlgorithmTags.SHA256),
                    null);
            rings.addSubKey(SUB);
            PGPPublicKey subkey = rings.generatePublicKeyRing().getPublicKey(SUB.getKeyID());
            for (PGPSignature binding : list(subkey.getSignatures())) {
                subkey = PGPPublicKey.removeCertification(subkey, binding);
            }
            return subkey;
        } catch (PGPException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PGPPublicKeyRing ring(PGPPublicKey... keys) {
        return new PGPPublicKeyRing(List.of(keys));
    }

    private static PGPPublicKey subkey(PGPPublicKeyRing ring) {
        return ring.getPublicKey(SUB.getKeyID());
    }

    /** The primary key with one user ID whose positive self-signature carries {@code flags}. */
    private static PGPPublicKey primaryWith(String userId, int flags) {
        return withUserId(
                PRIMARY.getPublicKey(),
                userId,
                certification(PRIMARY, PGPSignature.POSITIVE_CERTIFICATION, userId, 0, flags, false));
    }

    private static PGPPublicKey withUserId(PGPPublicKey key, String userId, PGPSignature signature) {
        return PGPPublicKey.addCertification(key, userId, signature);
    }

    /** SUB bound to PRIMARY as GnuPG binds a signing subkey: flagged for signing, with its back-signature. */
    private static PGPPublicKey signingSubkey(int minutes) {
        return PGPPublicKey.addCertification(
                BARE_SUBKEY, binding(PRIMARY, minutes, SIGN, false, List.of(backSignature(SUB, minutes))));
    }

    private static PGPSignature certification(
            PGPKeyPair signer, int type, String userId, int minutes, int flags, boolean primaryFlag) {
        return sign(signer, type, minutes, flags, primaryFlag, List.of())
                .generateCertificationUnchecked(userId, PRIMARY.getPublicKey());
    }

    private static PGPSignature binding(
            PGPKeyPair signer, int minutes, int flags, boolean embeddedUnhashed, List<PGPSignature> embedded) {
        Signer generator = embeddedUnhashed
                ? sign(signer, PGPSignature.SUBKEY_BINDING, minutes, flags, false, List.of())
                        .unhashed(embedded)
                : sign(signer, PGPSignature.SUBKEY_BINDING, minutes, flags, false, embedded);
        return generator.generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY);
    }

    private static PGPSignature backSignature(PGPKeyPair signer, int minutes) {
        return sign(signer, PGPSignature.PRIMARYKEY_BINDING, minutes, null, false, List.of())
                .generateCertification(PRIMARY.getPublicKey(), BARE_SUBKEY);
    }

    private static PGPSignature direct(PGPKeyPair signer, int type, PGPPublicKey key) {
        return sign(signer, type, 1, null, false, List.of()).generateCertification(key);
    }

    /** A signature generator of {@code type} by {@code signer}, made {@code minutes} after the keys. */
    private static Signer sign(
            PGPKeyPair signer, int type, int minutes, Integer flags, boolean primaryFlag, List<PGPSignature> embedded) {
        try {
            PGPSignatureGenerator generator = new PGPSignatureGenerator(
                    new BcPGPContentSignerBuilder(PublicKeyAlgorithmTags.RSA_GENERAL, HashAlgorithmTags.SHA256),
                    signer.getPublicKey());
            generator.init(type, signer.getPrivateKey());
            PGPSignatureSubpacketGenerator hashed = new PGPSignatureSubpacketGenerator();
            hashed.setSignatureCreationTime(false, Date.from(KEYS_MADE.plus(Duration.ofMinutes(minutes))));
            if (flags != null) {
                hashed.setKeyFlags(false, flags);
            }
            if (primaryFlag) {
                hashed.setPrimaryUserID(false, true);
            }
            for (PGPSignature signature : embedded) {
                hashed.addEmbeddedSignature(false, signature);
            }
            generator.setHashedSubpackets(hashed.generate());
            return new Signer(generator);
        } catch (PGPException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A signature generator whose checked exceptions are the test's failures. */
    private record Signer(PGPSignatureGenerator generator) {
        Signer unhashed(List<PGPSignature> embedded) {
            try {
                PGPSignatureSubpacketGenerator unhashed = new PGPSignatureSubpacketGenerator();
                for (PGPSignature signature : embedded) {
                    unhashed.addEmbeddedSignature(false, signature);
                }
                generator.setUnhashedSubpackets(unhashed.generate());
                return this;
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }

        PGPSignature generateCertificationUnchecked(String userId, PGPPublicKey key) {
            try {
                return generator.generateCertification(userId, key);
            } catch (PGPException e) {
                throw new IllegalStateException(e);
            }
        }

        PGPSignature generateCertification(PGPPublicKey primary, PGPPublicKey subkey) {
            try {
                return generator.generateCertification(primary, subkey);
            } catch (PGPException e) {
                throw new IllegalStateException(e);
            }
        }

        PGPSignature generateOver(byte[] document) {
            try {
                generator.update(document);
                return generator.generate();
            } catch (PGPException e) {
                throw new IllegalStateException(e);
            }
        }

        PGPSignature generateCertification(PGPPublicKey key) {
            try {
                return generator.generateCertification(key);
            } catch (PGPException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static <T> List<T> list(Iterator<T> iterator) {
        List<T> all = new ArrayList<>();
        iterator.forEachRemaining(all::add);
        return all;
    }
}
