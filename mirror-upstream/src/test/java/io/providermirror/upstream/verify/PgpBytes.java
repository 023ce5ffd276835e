package io.providermirror.upstream.verify;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.bcpg.ArmoredOutputStream;

/** The bytes of the verification tests' OpenPGP fixtures: files joined one after another, binary armored. */
final class PgpBytes {

    private PgpBytes() {}

    /** {@code parts}, one after another. */
    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** {@code binary} (packets) ASCII-armored, as an origin lists a key. */
    static String armored(byte[] binary) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream armor = new ArmoredOutputStream(out)) {
            armor.write(binary);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
