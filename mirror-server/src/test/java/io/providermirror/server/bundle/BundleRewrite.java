package io.providermirror.server.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/** Bundles altered as an attacker or a broken copy would alter them, for the tests of import. */
public final class BundleRewrite {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BundleRewrite() {}

    /**
     * Writes {@code bundle}'s entries, each passed through {@code change} (entry name, bytes), to {@code out}; with
     * {@code updateManifest}, the manifest's sizes and sha256s then agree with the changed entries.
     */
    public static Path rewrite(Path bundle, Path out, BiFunction<String, byte[], byte[]> change, boolean updateManifest)
            throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(bundle);
                TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                entries.put(entry.getName(), change.apply(entry.getName(), tar.readAllBytes()));
            }
        }
        if (updateManifest) {
            ObjectNode manifest = (ObjectNode) JSON.readTree(entries.get(BundleManifest.PATH));
            for (JsonNode entry : manifest.get("entries")) {
                byte[] bytes = entries.get(entry.get("path").asText());
                ((ObjectNode) entry).put("size", bytes.length).put("sha256", sha256(bytes));
            }
            entries.put(BundleManifest.PATH, JSON.writeValueAsBytes(manifest));
        }
        return writeTar(out, entries);
    }

    /** A tar of {@code entries} (name, bytes), in their order, at {@code out}. */
    public static Path writeTar(Path out, Map<String, byte[]> entries) throws IOException {
        try (OutputStream file = Files.newOutputStream(out);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(file)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                TarArchiveEntry header = new TarArchiveEntry(entry.getKey());
                header.setSize(entry.getValue().length);
                tar.putArchiveEntry(header);
                tar.write(entry.getValue());
                tar.closeArchiveEntry();
            }
        }
        return out;
    }

    /** {@code bytes} with one bit of the middle byte flipped: other content of the same length. */
    public static byte[] flip(byte[] bytes) {
        byte[] copy = bytes.clone();
        copy[copy.length / 2] ^= 0x01;
        return copy;
    }

    /** The sha256 of {@code bytes}, in lower-case hex. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
