package io.providermirror.upstream.verify;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPMarker;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.bc.BcPGPObjectFactory;

/** The key rings of an origin's ASCII-armored signing key ({@code ascii_armor}), read as the CLI reads them. */
final class ArmoredKeys {

    private ArmoredKeys() {}

    /**
     * The key rings of {@code armored} in its order, as the CLI's library reads a key ring: every one, a primary key
     * listed twice included (not the last of each ID only, as Bouncy Castle's key ring collection keeps them), marker
     * packets skipped, anything else refused. How many of them a verification judges is bounded by {@link
     * SignatureChecks#MAX_RINGS}.
     */
    static List<PGPPublicKeyRing> read(String armored) {
        List<PGPPublicKeyRing> rings = new ArrayList<>();
        try (InputStream in =
                PGPUtil.getDecoderStream(new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
            BcPGPObjectFactory packets = new BcPGPObjectFactory(in);
            Object next;
            while ((next = packets.nextObject()) != null) {
                if (next instanceof PGPMarker) {
                    continue;
                }
                if (!(next instanceof PGPPublicKeyRing ring)) {
                    throw new PGPException(next.getClass().getSimpleName() + " found where a public key was expected");
                }
                rings.add(ring);
            }
        } catch (IOException | PGPException | RuntimeException e) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing key is not a valid ASCII-armored OpenPGP public key: " + e.getMessage());
        }
        return rings;
    }
}
