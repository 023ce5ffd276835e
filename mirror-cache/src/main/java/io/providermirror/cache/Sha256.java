package io.providermirror.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The cache's one sha256 digest: blobs are committed, checked and verified by the same hash. */
final class Sha256 {

    private static final int BUFFER_BYTES = 64 * 1024;

    private Sha256() {}

    /** A fresh sha256 digest. */
    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The lowercase hex sha256 of {@code content}'s remaining bytes (its position is left as it was). */
    static String hex(ByteBuffer content) {
        MessageDigest digest = digest();
        digest.update(content.duplicate());
        return HexFormat.of().formatHex(digest.digest());
    }

    /** The lowercase hex sha256 of everything {@code channel} reads from its position on. */
    static String hex(ReadableByteChannel channel) throws IOException {
        MessageDigest digest = digest();
        ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
        while (channel.read(buffer) >= 0) {
            buffer.flip();
            digest.update(buffer);
            buffer.clear();
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
