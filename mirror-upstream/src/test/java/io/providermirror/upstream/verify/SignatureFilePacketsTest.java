package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.TestPgpKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.bcpg.CompressionAlgorithmTags;
import org.bouncycastle.openpgp.PGPCompressedDataGenerator;
import org.junit.jupiter.api.Test;

/**
 * What a SHA256SUMS signature file may hold: signature packets, as the CLI reads it (its OpenPGP library takes the
 * packets of a detached signature one after another and refuses the file at the first that is not a signature,
 * ignoring only marker packets). An origin's compressed data packet, which the CLI never opens, is refused, however
 * deep it nests or however much it inflates to.
 */
final class SignatureFilePacketsTest {

    private static final byte[] SUMS =
            ("b".repeat(64) + "  terraform-provider-x_1.0.0_linux_amd64.zip\n").getBytes(StandardCharsets.UTF_8);

    private static final TestPgpKey key = TestPgpKey.generate("Packets <packets@example.test>");

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

    private static byte[] concat(byte[] first, byte[] second) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(first);
        out.writeBytes(second);
        return out.toByteArray();
    }
}
