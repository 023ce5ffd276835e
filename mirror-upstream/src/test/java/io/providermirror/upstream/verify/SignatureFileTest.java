package io.providermirror.upstream.verify;

import static io.providermirror.upstream.verify.PgpBytes.concat;
import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.TestPgpKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.bcpg.BCPGInputStream;
import org.bouncycastle.bcpg.BCPGOutputStream;
import org.bouncycastle.bcpg.CompressionAlgorithmTags;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PacketFormat;
import org.bouncycastle.bcpg.SignaturePacket;
import org.bouncycastle.bcpg.SignatureSubpacket;
import org.bouncycastle.bcpg.SignatureSubpacketTags;
import org.bouncycastle.bcpg.sig.IssuerFingerprint;
import org.bouncycastle.bcpg.sig.IssuerKeyID;
import org.bouncycastle.openpgp.PGPCompressedDataGenerator;
import org.junit.jupiter.api.Test;

/**
 * What a SHA256SUMS signature file may hold: signature packets, as the CLI reads it (its OpenPGP library takes the
 * packets of a detached signature one after another and refuses the file at the first that is not a signature,
 * ignoring only marker packets). An origin's compressed data packet, which the CLI never opens, is refused, however
 * deep it nests or however much it inflates to. Signatures the library skips (a hash it does not parse) are skipped,
 * and one that names no issuer, or two, is refused.
 */
final class SignatureFileTest {

    private static final byte[] SUMS =
            ("b".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n").getBytes(StandardCharsets.UTF_8);

    private static final TestPgpKey key = TestPgpKey.generate("Packets <packets@example.test>");
    private static final TestPgpKey other = TestPgpKey.generate("Other <other@example.test>");

    /** An OpenPGP marker packet (tag 10, "PGP"), which readers must ignore. */
    private static final byte[] MARKER = {(byte) 0xCA, 0x03, 'P', 'G', 'P'};

    @Test
    void aSignatureAfterAMarkerPacketVerifiesAsTheClisLibraryIgnoresMarkers() {
        byte[] signature = concat(MARKER, key.signDetached(SUMS));

        assertThat(VerifyNow.signature(SUMS, signature, List.of(key.armoredPublicKey())))
                .isEqualTo(key.signingKeyId());
    }

    @Test
    void aGenuineSignatureInsideACompressedPacketIsRefusedAsTheCliRefusesIt() {
        byte[] compressed = compressed(key.signDetached(SUMS), CompressionAlgorithmTags.ZIP);

        assertThat(refusal(compressed))
                .isInstanceOfSatisfying(
                        VerificationException.class,
                        e -> assertThat(e.check()).isEqualTo(VerificationException.Check.SIGNATURE))
                .hasMessageContaining("compressed data packet")
                .hasMessageContaining("only signature packets");
    }

    /**
     * Compressed packets nested within each other: each layer wraps the stream below it, so reading the innermost
     * signature went as deep into the stack as the file nests, and a StackOverflowError (an Error, not a refusal)
     * left the verification. Judged on a thread with a small stack, as the mirror's worker threads may have.
     */
    @Test
    void compressedPacketsNestedThousandsDeepAreRefusedWithoutReachingTheSignature() throws Exception {
        byte[] nested = key.signDetached(SUMS);
        for (int depth = 0; depth < 20_000; depth++) {
            nested = compressed(nested, CompressionAlgorithmTags.UNCOMPRESSED);
        }

        assertThat(onSmallStack(nested))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("compressed data packet");
    }

    /**
     * A few hundred KiB that inflate to a hundred thousand signatures: the mirror read every one of them into memory
     * before counting them. Refused at the compressed packet, with nothing inflated.
     */
    @Test
    void aCompressedPacketInflatingToAFloodOfSignaturesIsRefusedAtTheCompressedPacket() {
        byte[] one = key.signDetached(SUMS);
        ByteArrayOutputStream flood = new ByteArrayOutputStream();
        for (int i = 0; i < 100_000; i++) {
            flood.writeBytes(one);
        }
        byte[] bomb = compressed(flood.toByteArray(), CompressionAlgorithmTags.ZLIB);
        assertThat(bomb.length).isLessThan(4 * 1024 * 1024);

        assertThat(refusal(bomb))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("compressed data packet");
    }

    /**
     * A signature made with MD5 by the listed key: the CLI's library cannot parse its hash and skips it, so the file
     * holds no signature it reads (Bouncy Castle verifies MD5, and the mirror accepted it).
     */
    @Test
    void aSignatureMadeWithAHashTheCliDoesNotParseIsSkippedAsTheCliSkipsIt() {
        byte[] md5 = key.signDetachedWithHash(SUMS, HashAlgorithmTags.MD5);

        assertThat(refusal(md5))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("holds no OpenPGP signature made with a hash the CLI reads");
        assertThat(VerifyNow.signature(SUMS, concat(md5, key.signDetached(SUMS)), List.of(key.armoredPublicKey())))
                .as("a readable signature after it still counts")
                .isEqualTo(key.signingKeyId());
        assertThat(VerifyNow.signature(
                        SUMS, key.signDetachedWithHash(SUMS, HashAlgorithmTags.SHA1), List.of(key.armoredPublicKey())))
                .as("SHA-1, which the library reads in a version 4 signature")
                .isEqualTo(key.signingKeyId());
        assertThat(refusal(MARKER))
                .as("a file of no signature at all")
                .hasMessageContaining("holds no OpenPGP signature")
                .hasMessageNotContaining("made with a hash");
    }

    /**
     * A valid signature stripped of its issuer (which no signature covers), ahead of a good one: the CLI's library
     * stops at it, the mirror passed over it to the next and accepted.
     */
    @Test
    void aSignatureNamingNoIssuerRefusesTheFileAsTheCliRefusesIt() {
        byte[] good = key.signDetached(SUMS);
        byte[] anonymous = withUnhashed(good);

        assertThat(refusal(concat(anonymous, good)))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("names no issuer, which the CLI refuses");
    }

    /**
     * A valid signature whose unhashed area names its key by ID and then another key by fingerprint: the CLI's
     * library takes the last (the other key, which the origin does not list, and refuses); Bouncy Castle took the ID.
     */
    @Test
    void aSignatureNamingTwoIssuersIsRefused() {
        byte[] twoIssuers = withUnhashed(
                key.signDetached(SUMS),
                new IssuerKeyID(false, Long.parseUnsignedLong(key.signingKeyId(), 16)),
                new IssuerFingerprint(false, 4, HexFormat.of().parseHex(other.primaryFingerprint())));

        assertThat(refusal(twoIssuers))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("names two issuers");
        assertThat(VerifyNow.signature(
                        SUMS,
                        withUnhashed(
                                key.signDetached(SUMS),
                                new IssuerKeyID(false, Long.parseUnsignedLong(key.signingKeyId(), 16))),
                        List.of(key.armoredPublicKey())))
                .as("one issuer, named once")
                .isEqualTo(key.signingKeyId());
    }

    /**
     * Issuer subpackets of the wrong length, which the CLI's library refuses ("issuer subpacket with bad length", "bad
     * fingerprint length") and Bouncy Castle read by their first or last 8 bytes: a 9-byte key ID, a 32-byte
     * fingerprint of a version 4 key.
     */
    @Test
    void issuerSubpacketsOfTheWrongLengthAreRefusedAsTheCliRefusesThem() {
        byte[] id = new byte[9];
        System.arraycopy(HexFormat.of().parseHex(key.signingKeyId()), 0, id, 0, 8);
        byte[] fingerprint = new byte[33];
        fingerprint[0] = 4;
        System.arraycopy(HexFormat.of().parseHex(key.primaryFingerprint()), 0, fingerprint, 13, 20);

        assertThat(refusal(withUnhashed(key.signDetached(SUMS), new IssuerKeyID(false, false, id))))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("an issuer key ID of the wrong length");
        assertThat(refusal(withUnhashed(key.signDetached(SUMS), new IssuerFingerprint(false, false, fingerprint))))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("an issuer fingerprint of the wrong length");
    }

    /** {@code signature}'s one packet with its unhashed subpackets replaced by {@code unhashed}. */
    private static byte[] withUnhashed(byte[] signature, SignatureSubpacket... unhashed) {
        try {
            SignaturePacket packet = (SignaturePacket)
                    BCPGInputStream.wrap(new ByteArrayInputStream(signature)).readPacket();
            assertThat(packet.getHashedSubPackets())
                    .extracting(SignatureSubpacket::getType)
                    .doesNotContain(SignatureSubpacketTags.ISSUER_KEY_ID, SignatureSubpacketTags.ISSUER_FINGERPRINT);
            SignaturePacket changed = new SignaturePacket(
                    packet.getVersion(),
                    packet.getSignatureType(),
                    packet.getKeyID(),
                    packet.getKeyAlgorithm(),
                    packet.getHashAlgorithm(),
                    packet.getHashedSubPackets(),
                    unhashed,
                    packet.getFingerPrint(),
                    packet.getSignature());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (BCPGOutputStream packets = new BCPGOutputStream(out, PacketFormat.CURRENT)) {
                changed.encode(packets);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Throwable refusal(byte[] signature) {
        try {
            VerifyNow.signature(SUMS, signature, List.of(key.armoredPublicKey()));
            return null;
        } catch (RuntimeException | Error e) {
            return e;
        }
    }

    private static Throwable onSmallStack(byte[] signature) throws InterruptedException {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread small = new Thread(null, () -> outcome.set(refusal(signature)), "small-stack", 256 * 1024);
        small.start();
        small.join();
        return outcome.get();
    }

    private static byte[] compressed(byte[] packets, int algorithm) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(packets.length + 64);
        PGPCompressedDataGenerator generator = new PGPCompressedDataGenerator(algorithm);
        try (OutputStream body = generator.open(out)) {
            body.write(packets);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
