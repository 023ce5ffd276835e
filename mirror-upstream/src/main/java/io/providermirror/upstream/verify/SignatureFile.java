package io.providermirror.upstream.verify;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.bcpg.BCPGInputStream;
import org.bouncycastle.bcpg.PacketTags;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPMarker;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPUtil;

/**
 * The signatures of a detached signature file over SHA256SUMS, read as the CLI reads it: its OpenPGP library takes
 * the file's packets one after another, ignores marker packets and refuses the file at the first packet that is not
 * a signature. So a compressed data packet, which the library never opens, is refused unopened: whatever it holds,
 * however deep it nests, however much it would inflate to. At most {@link SignatureChecks#MAX_DETACHED} signatures
 * are read, counted before each one. The file may also be ASCII-armored (the mirror's choice; the protocol says
 * binary).
 */
final class SignatureFile {

    private SignatureFile() {}

    /**
     * The signatures {@code file} holds, in its order.
     *
     * @throws VerificationException when it holds something else, too many or none, or cannot be read
     */
    static List<PGPSignature> read(byte[] file) {
        List<PGPSignature> signatures = new ArrayList<>();
        try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(file))) {
            BCPGInputStream packets = BCPGInputStream.wrap(in);
            int tag;
            while ((tag = packets.nextPacketTag()) >= 0) {
                if (tag == PacketTags.MARKER) {
                    new PGPMarker(packets);
                } else if (tag == PacketTags.SIGNATURE) {
                    SignatureChecks.admitDetached(signatures.size());
                    signatures.add(new PGPSignature(packets));
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
                    VerificationException.Check.SIGNATURE, "the SHA256SUMS signature file holds no OpenPGP signature");
        }
        return signatures;
    }
}
