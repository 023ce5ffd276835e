package io.providermirror.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.bcpg.ArmoredOutputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.PublicSubkeyPacket;
import org.bouncycastle.bcpg.sig.KeyFlags;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPKeyPair;
import org.bouncycastle.openpgp.PGPKeyRingGenerator;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureGenerator;
import org.bouncycastle.openpgp.PGPSignatureSubpacketGenerator;
import org.bouncycastle.openpgp.operator.PGPDigestCalculator;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentSignerBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPDigestCalculatorProvider;
import org.bouncycastle.openpgp.operator.bc.BcPGPKeyPair;

/**
 * An OpenPGP key made for a test: an RSA primary key with a user ID and, optionally, a signing subkey bound to
 * it. It signs documents the way origins sign SHA256SUMS (detached, binary or armored).
 */
public final class TestPgpKey {

    private final PGPKeyPair primary;
    private final PGPKeyPair subkey;
    private final PGPPublicKeyRing publicRing;

    TestPgpKey(PGPKeyPair primary, PGPKeyPair subkey, PGPPublicKeyRing publicRing) {
        this.primary = primary;
        this.subkey = subkey;
        this.publicRing = publicRing;
    }

    /** A key with only a primary key, which signs. */
    public static TestPgpKey generate(String userId) {
        return generate(userId, false, Flaw.NONE, Dates.FOREVER_FROM_NOW);
    }

    /** A key whose signatures are made by a signing subkey, as HashiCorp's are. */
    public static TestPgpKey generateWithSigningSubkey(String userId) {
        return generate(userId, true, Flaw.NONE, Dates.FOREVER_FROM_NOW);
    }

    /**
     * A key made at {@code dates.created()} (its key packets and every self-signature dated then) whose key that
     * signs (the primary key, or with {@code withSigningSubkey} the subkey) expires after {@code dates.lifetime()}, as
     * its self-signature (the subkey's binding) says.
     */
    public static TestPgpKey generateDated(String userId, boolean withSigningSubkey, Dates dates) {
        return generate(userId, withSigningSubkey, Flaw.NONE, dates);
    }

    /**
     * When a test key was made, how long the key that signs lives and how long a signing subkey's cross-signature
     * (back-signature) is valid ({@code null}: it never expires).
     */
    public record Dates(Instant created, Duration lifetime, Duration crossSignatureLifetime) {
        /** Made a little before now ({@link #BACKDATED}), never expiring. */
        static final Dates FOREVER_FROM_NOW = new Dates(null, null);

        /** A key whose cross-signature, if any, never expires. */
        public Dates(Instant created, Duration lifetime) {
            this(created, lifetime, null);
        }

        Date creationDate() {
            return Date.from(created == null ? recently() : created);
        }
    }

    /**
     * How long before now undated keys and signatures are made, as an origin's were made some time before a mirror
     * reads them: OpenPGP dates have whole seconds, and a signature or self-signature dated after the verifier's now
     * is refused as the CLI refuses it, so a test clock frozen a moment before the signing must not see it from the
     * future.
     */
    public static final Duration BACKDATED = Duration.ofHours(1);

    private static Instant recently() {
        return Instant.now().minus(BACKDATED);
    }

    /**
     * A key made with one {@code flaw} that the CLI's OpenPGP library refuses; it still signs with the key the flaw
     * is about (the primary key for {@code PRIMARY_*} flaws, a subkey for {@code SUBKEY_*} ones).
     */
    public static TestPgpKey generateFlawed(String userId, Flaw flaw) {
        return generate(userId, flaw.name().startsWith("SUBKEY_"), flaw, Dates.FOREVER_FROM_NOW);
    }

    /** One way a key's self-signatures can fall short of what the CLI requires of a signing key. */
    public enum Flaw {
        /** Made as GnuPG makes keys. */
        NONE,
        /** The primary key's self-signature has no key flags subpacket at all. */
        PRIMARY_WITHOUT_KEY_FLAGS,
        /** The primary key's self-signature flags it for certifying only. */
        PRIMARY_NOT_FLAGGED_FOR_SIGNING,
        /** The subkey's binding has no key flags and no back-signature (how keys were once made here). */
        SUBKEY_WITHOUT_KEY_FLAGS,
        /** The subkey's binding flags it for encryption only (it carries a good back-signature). */
        SUBKEY_NOT_FLAGGED_FOR_SIGNING,
        /** The subkey's binding flags it for signing but carries no back-signature. */
        SUBKEY_WITHOUT_BACK_SIGNATURE,
        /** The subkey's binding flags it for signing, with a back-signature made by another key than the subkey. */
        SUBKEY_BACK_SIGNED_BY_ANOTHER_KEY,
        /** The primary key's RSA public exponent is 2^32 + 1, longer than the 3 bytes the CLI's library reads. */
        PRIMARY_LARGE_RSA_EXPONENT,
        /** The signing subkey's RSA public exponent is 2^32 + 1 (the subkey otherwise made as GnuPG makes it). */
        SUBKEY_LARGE_RSA_EXPONENT
    }

    /**
     * A key as GnuPG makes them, which the real CLI's OpenPGP library accepts: key flags on the primary key's
     * self-signature, and a signing subkey's binding carrying the subkey's own back-signature (cross-certification).
     */
    private static TestPgpKey generate(String userId, boolean withSubkey, Flaw flaw, Dates dates) {
        try {
            Date created = dates.creationDate();
            PGPKeyPair primary = rsaKeyPair(created, flaw == Flaw.PRIMARY_LARGE_RSA_EXPONENT);
            PGPDigestCalculator sha1 = new BcPGPDigestCalculatorProvider().get(HashAlgorithmTags.SHA1);
            PGPSignatureSubpacketGenerator primaryFlags = new PGPSignatureSubpacketGenerator();
            primaryFlags.setSignatureCreationTime(false, created);
            if (!withSubkey && dates.lifetime() != null) {
                primaryFlags.setKeyExpirationTime(false, dates.lifetime().toSeconds());
            }
            if (flaw != Flaw.PRIMARY_WITHOUT_KEY_FLAGS) {
                primaryFlags.setKeyFlags(
                        false,
                        withSubkey || flaw == Flaw.PRIMARY_NOT_FLAGGED_FOR_SIGNING
                                ? KeyFlags.CERTIFY_OTHER
                                : KeyFlags.CERTIFY_OTHER | KeyFlags.SIGN_DATA);
            }
            PGPKeyRingGenerator rings = new PGPKeyRingGenerator(
                    PGPSignature.POSITIVE_CERTIFICATION,
                    primary,
                    userId,
                    sha1,
                    primaryFlags.generate(),
                    null,
                    new BcPGPContentSignerBuilder(primary.getPublicKey().getAlgorithm(), HashAlgorithmTags.SHA256),
                    null);
            PGPKeyPair subkey = null;
            if (withSubkey) {
                subkey = rsaKeyPair(created, flaw == Flaw.SUBKEY_LARGE_RSA_EXPONENT);
                PGPSignatureSubpacketGenerator binding = new PGPSignatureSubpacketGenerator();
                binding.setSignatureCreationTime(false, created);
                if (dates.lifetime() != null) {
                    binding.setKeyExpirationTime(false, dates.lifetime().toSeconds());
                }
                if (flaw != Flaw.SUBKEY_WITHOUT_KEY_FLAGS) {
                    binding.setKeyFlags(
                            false,
                            flaw == Flaw.SUBKEY_NOT_FLAGGED_FOR_SIGNING
                                    ? KeyFlags.ENCRYPT_COMMS | KeyFlags.ENCRYPT_STORAGE
                                    : KeyFlags.SIGN_DATA);
                }
                if (flaw != Flaw.SUBKEY_WITHOUT_KEY_FLAGS && flaw != Flaw.SUBKEY_WITHOUT_BACK_SIGNATURE) {
                    PGPKeyPair backSigner =
                            flaw == Flaw.SUBKEY_BACK_SIGNED_BY_ANOTHER_KEY ? rsaKeyPair(created, false) : subkey;
                    binding.addEmbeddedSignature(
                            false, backSignature(primary, subkey, backSigner, created, dates.crossSignatureLifetime()));
                }
                rings.addSubKey(subkey, binding.generate(), null);
            }
            return new TestPgpKey(primary, subkey, rings.generatePublicKeyRing());
        } catch (PGPException | IOException e) {
            throw new IllegalStateException("cannot generate a test OpenPGP key", e);
        }
    }

    /** The primary key binding signature by {@code signer} over {@code primary} and {@code subkey}. */
    private static PGPSignature backSignature(
            PGPKeyPair primary, PGPKeyPair subkey, PGPKeyPair signer, Date created, Duration lifetime)
            throws PGPException {
        PGPSignatureGenerator back = new PGPSignatureGenerator(
                new BcPGPContentSignerBuilder(signer.getPublicKey().getAlgorithm(), HashAlgorithmTags.SHA256),
                signer.getPublicKey());
        back.init(PGPSignature.PRIMARYKEY_BINDING, signer.getPrivateKey());
        PGPSignatureSubpacketGenerator dated = new PGPSignatureSubpacketGenerator();
        dated.setSignatureCreationTime(false, created);
        if (lifetime != null) {
            dated.setSignatureExpirationTime(false, lifetime.toSeconds());
        }
        back.setHashedSubpackets(dated.generate());
        return back.generateCertification(primary.getPublicKey(), subkey.getPublicKey());
    }

    /**
     * This key's public key ring, ASCII-armored, with a revocation by the primary key of the key that signs (a key
     * revocation when the primary key signs, a subkey revocation when a subkey does).
     */
    public String armoredPublicKeyRevokingSigner() {
        try {
            PGPPublicKey revoked;
            if (subkey == null) {
                revoked = PGPPublicKey.addCertification(
                        publicRing.getPublicKey(),
                        byPrimary(PGPSignature.KEY_REVOCATION, null).generateCertification(primary.getPublicKey()));
            } else {
                PGPPublicKey listed = publicRing.getPublicKey(subkey.getKeyID());
                revoked = PGPPublicKey.addCertification(
                        listed,
                        byPrimary(PGPSignature.SUBKEY_REVOCATION, null)
                                .generateCertification(primary.getPublicKey(), listed));
            }
            return armored(PGPPublicKeyRing.insertPublicKey(publicRing, revoked));
        } catch (PGPException | IOException e) {
            throw new IllegalStateException("cannot revoke the test key", e);
        }
    }

    /**
     * This key's public key ring, ASCII-armored, with its (only) user ID revoked by the primary key: a certification
     * revocation (0x30) made at {@code made}.
     */
    public String armoredPublicKeyRevokingUserId(Instant made) {
        try {
            PGPPublicKey key = publicRing.getPublicKey();
            String userId = key.getUserIDs().next();
            PGPSignature revocation =
                    byPrimary(PGPSignature.CERTIFICATION_REVOCATION, made).generateCertification(userId, key);
            return armored(PGPPublicKeyRing.insertPublicKey(
                    publicRing, PGPPublicKey.addCertification(key, userId, revocation)));
        } catch (PGPException | IOException e) {
            throw new IllegalStateException("cannot revoke the test key's user ID", e);
        }
    }

    /** A generator of {@code type} signatures by the primary key, made at {@code made} (null: now). */
    private PGPSignatureGenerator byPrimary(int type, Instant made) throws PGPException {
        PGPSignatureGenerator generator = new PGPSignatureGenerator(
                new BcPGPContentSignerBuilder(primary.getPublicKey().getAlgorithm(), HashAlgorithmTags.SHA256),
                primary.getPublicKey());
        generator.init(type, primary.getPrivateKey());
        if (made != null) {
            PGPSignatureSubpacketGenerator dated = new PGPSignatureSubpacketGenerator();
            dated.setSignatureCreationTime(false, Date.from(made));
            generator.setHashedSubpackets(dated.generate());
        }
        return generator;
    }

    private static String armored(PGPPublicKeyRing ring) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ArmoredOutputStream armored = new ArmoredOutputStream(bytes)) {
            ring.encode(armored);
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    /**
     * An OpenPGP version 3 RSA key forged to carry the key ID {@code keyId} (16 hex digits, odd): a v3 key's ID is
     * the low 64 bits of its modulus, which whoever makes the key chooses. This is how anyone can make a key with
     * somebody else's (v4) key ID; it has a user ID and no self-signature.
     */
    public static TestPgpKey forgeV3(String keyId) {
        return ForgedV3Keys.forge(keyId);
    }

    /** A 2048-bit RSA key ({@link TestRsaKeys}), its public exponent 65537, or 2^32 + 1 when {@code largeExponent}. */
    private static PGPKeyPair rsaKeyPair(Date created, boolean largeExponent) throws PGPException {
        AsymmetricCipherKeyPair pair = largeExponent ? TestRsaKeys.withLargeExponent() : TestRsaKeys.next();
        return new BcPGPKeyPair(PublicKeyPacket.VERSION_4, PublicKeyAlgorithmTags.RSA_GENERAL, pair, created);
    }

    /** The public key ring, ASCII-armored, as origins list it in {@code signing_keys}. */
    public String armoredPublicKey() {
        try {
            return armored(publicRing);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Several keys' public key rings in one ASCII-armored block, as one {@code ascii_armor} of a download
     * document may carry them.
     */
    public static String armoredTogether(TestPgpKey... keys) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ArmoredOutputStream armored = new ArmoredOutputStream(bytes)) {
            for (TestPgpKey key : keys) {
                key.publicRing.encode(armored);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    /**
     * This key's public key ring with a copy of {@code victim}'s primary public key bound to it as a subkey,
     * ASCII-armored; {@code flaggedForSigning} puts the sign flag in the binding. Anyone can make such a ring: the
     * binding is signed by this key alone, and the copy has the victim's key ID and fingerprint. Only a
     * back-signature, which needs the victim's private key, is missing.
     */
    public String armoredPublicKeyClaiming(TestPgpKey victim, boolean flaggedForSigning) {
        try {
            var packet = victim.primary.getPublicKey().getPublicKeyPacket();
            PGPPublicKey copy = new PGPPublicKey(
                    new PublicSubkeyPacket(
                            PublicKeyPacket.VERSION_4, packet.getAlgorithm(), packet.getTime(), packet.getKey()),
                    new BcKeyFingerprintCalculator());
            PGPSignatureGenerator generator = byPrimary(PGPSignature.SUBKEY_BINDING, null);
            PGPSignatureSubpacketGenerator flags = new PGPSignatureSubpacketGenerator();
            flags.setKeyFlags(false, flaggedForSigning ? KeyFlags.SIGN_DATA : KeyFlags.ENCRYPT_COMMS);
            generator.setHashedSubpackets(flags.generate());
            PGPPublicKey bound =
                    PGPPublicKey.addCertification(copy, generator.generateCertification(primary.getPublicKey(), copy));
            return armored(PGPPublicKeyRing.insertPublicKey(publicRing, bound));
        } catch (PGPException | IOException e) {
            throw new IllegalStateException("cannot make the test key ring", e);
        }
    }

    /** The hex ID of the key that makes signatures. */
    public String signingKeyId() {
        return String.format("%016X", signer().getKeyID());
    }

    /** The primary key's fingerprint, 40 upper-case hex digits, as operators pin it. */
    public String primaryFingerprint() {
        return java.util.HexFormat.of()
                .withUpperCase()
                .formatHex(primary.getPublicKey().getFingerprint());
    }

    /** A detached binary signature over {@code document}. */
    public byte[] signDetached(byte[] document) {
        return sign(document, false, recently(), null, HashAlgorithmTags.SHA256);
    }

    /**
     * A detached binary signature over {@code document} made at {@code created} that expires after {@code lifetime}
     * (its signature expiration time; {@code null}: never).
     */
    public byte[] signDetached(byte[] document, Instant created, Duration lifetime) {
        return sign(document, false, created, lifetime, HashAlgorithmTags.SHA256);
    }

    /** A detached ASCII-armored signature over {@code document}. */
    public byte[] signDetachedArmored(byte[] document) {
        return sign(document, true, recently(), null, HashAlgorithmTags.SHA256);
    }

    /** A detached binary signature over {@code document} made with {@code hash} (a {@code HashAlgorithmTags}). */
    public byte[] signDetachedWithHash(byte[] document, int hash) {
        return sign(document, false, recently(), null, hash);
    }

    /** A detached binary signature of OpenPGP version 3 over {@code document}. */
    public byte[] signDetachedV3(byte[] document) {
        return ForgedV3Keys.signV3(signer(), document);
    }

    private PGPKeyPair signer() {
        return subkey != null ? subkey : primary;
    }

    @SuppressWarnings("deprecation")
    private byte[] sign(byte[] document, boolean armor, Instant created, Duration lifetime, int hash) {
        try {
            PGPKeyPair signer = signer();
            PGPSignatureGenerator generator = new PGPSignatureGenerator(
                    new BcPGPContentSignerBuilder(signer.getPublicKey().getAlgorithm(), hash));
            generator.init(PGPSignature.BINARY_DOCUMENT, signer.getPrivateKey());
            PGPSignatureSubpacketGenerator dated = new PGPSignatureSubpacketGenerator();
            dated.setSignatureCreationTime(false, Date.from(created));
            if (lifetime != null) {
                dated.setSignatureExpirationTime(false, lifetime.toSeconds());
            }
            generator.setHashedSubpackets(dated.generate());
            generator.update(document);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (OutputStream out = armor ? new ArmoredOutputStream(bytes) : bytes) {
                generator.generate().encode(out);
            }
            return bytes.toByteArray();
        } catch (PGPException | IOException e) {
            throw new IllegalStateException("cannot sign with the test key", e);
        }
    }
}
