package io.providermirror.upstream.verify;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.bcpg.BCPGInputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PacketTags;
import org.bouncycastle.bcpg.SignatureSubpacket;
import org.bouncycastle.bcpg.SignatureSubpacketTags;
import org.bouncycastle.bcpg.sig.IssuerFingerprint;
import org.bouncycastle.bcpg.sig.IssuerKeyID;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPMarker;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureSubpacketVector;
import org.bouncycastle.openpgp.PGPUtil;

/**
 * The signatures of a detached signature file over SHA256SUMS, read as the CLI reads it or refused: its OpenPGP
 * library takes the file's packets one after another, ignores marker packets (and packets of tags it does not know)
 * and refuses the file at a packet of any other kind, a compressed data packet among them, which it never opens. The
 * mirror refuses the file at any packet but a signature or a marker, so a compressed data packet is refused unopened:
 * whatever it holds, however deep it nests, however much it would inflate to. At most {@link
 * SignatureChecks#MAX_DETACHED} signatures are read, counted before each one (skipped ones too). As the library does,
 * a signature made with a hash it does not parse (MD5, RIPEMD-160 and the like; SHA-1 from version 5 on) is skipped;
 * a version 4 signature that names no issuer, names it in a malformed subpacket, or names two (an issuer key ID and
 * an issuer fingerprint of different keys, which the library and Bouncy Castle resolve to different keys) is refused.
 * The library stops reading at the first signature whose issuer it holds; the mirror reads the whole file, so it
 * refuses some files after such a signature that the CLI would not. The file may also be ASCII-armored (the mirror's
 * choice; the protocol says binary).
 */
final class SignatureFile {

    /** The hashes the CLI's library parses a signature with (go-crypto's {@code HashIdToHashWithSha1}; SHA-1 to v4). */
    private static final Set<Integer> CLI_HASHES = Set.of(
            HashAlgorithmTags.SHA1,
            HashAlgorithmTags.SHA224,
            HashAlgorithmTags.SHA256,
            HashAlgorithmTags.SHA384,
            HashAlgorithmTags.SHA512,
            HashAlgorithmTags.SHA3_256,
            HashAlgorithmTags.SHA3_512);

    private SignatureFile() {}

    /**
     * The signatures {@code file} holds, in its order.
     *
     * @throws VerificationException when it holds something else, too many or none, or cannot be read
     */
    static List<PGPSignature> read(byte[] file) {
        List<PGPSignature> signatures = new ArrayList<>();
        int read = 0;
        try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(file))) {
            BCPGInputStream packets = BCPGInputStream.wrap(in);
            int tag;
            while ((tag = packets.nextPacketTag()) >= 0) {
                if (tag == PacketTags.MARKER) {
                    new PGPMarker(packets);
                } else if (tag == PacketTags.SIGNATURE) {
                    SignatureChecks.admitDetached(read++);
                    PGPSignature signature = new PGPSignature(packets);
                    if (CLI_HASHES.contains(signature.getHashAlgorithm())
                            && !(signature.getVersion() >= 5
                                    && signature.getHashAlgorithm() == HashAlgorithmTags.SHA1)) {
                        checkIssuer(signature);
                        signatures.add(signature);
                    }
                } else {
                    throw new VerificationException(
                            VerificationException.Check.SIGNATURE,
                            "the SHA256SUMS signature file holds "
                                    + (tag == PacketTags.COMPRESSED_DATA
                                            ? "a compressed data packet"
                                            : "an OpenPGP packet of tag " + tag)
                                    + ", where only signature packets may be: the CLI refuses such a file, and the "
                                    + "mirror reads no further");
                }
            }
        } catch (VerificationException refusal) {
            throw refusal;
        } catch (IOException | PGPException | RuntimeException e) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the SHA256SUMS signature is not a valid OpenPGP signature: " + e.getMessage());
        }
        if (signatures.isEmpty()) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the SHA256SUMS signature file holds no OpenPGP signature"
                            + (read > 0 ? " made with a hash the CLI reads (SHA-1, SHA-2 or SHA-3)" : ""));
        }
        return signatures;
    }

    /** Refuses a version 4 {@code signature} that names no issuer, or two different ones. */
    private static void checkIssuer(PGPSignature signature) {
        if (signature.getVersion() < 4) {
            return;
        }
        Set<Long> issuers = new LinkedHashSet<>();
        for (PGPSignatureSubpacketVector area :
                new PGPSignatureSubpacketVector[] {signature.getHashedSubPackets(), signature.getUnhashedSubPackets()
                }) {
            if (area == null) {
                continue;
            }
            for (SignatureSubpacket issuer : area.getSubpackets(SignatureSubpacketTags.ISSUER_KEY_ID)) {
                checkLength(issuer.getData().length == 8, "issuer key ID");
                issuers.add(((IssuerKeyID) issuer).getKeyID());
            }
            for (SignatureSubpacket issuer : area.getSubpackets(SignatureSubpacketTags.ISSUER_FINGERPRINT)) {
                byte[] data = issuer.getData();
                // As the CLI's library: a version byte, then 32 bytes for a version 5 key and 20 for any other.
                checkLength(data.length > 0 && data.length - 1 == (data[0] == 5 ? 32 : 20), "issuer fingerprint");
                issuers.add(((IssuerFingerprint) issuer).getKeyID());
            }
        }
        if (issuers.size() != 1) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "a signature in the SHA256SUMS signature file names "
                            + (issuers.isEmpty()
                                    ? "no issuer, which the CLI refuses"
                                    : "two issuers, "
                                            + issuers.stream()
                                                    .map(SigningKeyRules::keyId)
                                                    .toList()
                                            + ": the mirror cannot tell which key the CLI would check it with"));
        }
    }

    private static void checkLength(boolean wellFormed, String subpacket) {
        if (!wellFormed) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "a signature in the SHA256SUMS signature file has an " + subpacket + " of the wrong length, which"
                            + " the CLI refuses");
        }
    }
}
