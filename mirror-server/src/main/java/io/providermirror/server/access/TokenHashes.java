package io.providermirror.server.access;

import io.providermirror.server.config.AuthConfig;
import io.providermirror.upstream.PackageHashes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A set of bearer tokens known by their SHA-256 only (tokens are never kept), as {@code auth.tokens} and
 * {@code operator.tokens} configure them: hashes in the configuration and in a file, one per line. A presented
 * token is compared with every hash in constant time, so the answer's timing tells nothing of which came close.
 */
public final class TokenHashes {

    /** No token: nothing is accepted. */
    public static final TokenHashes NONE = new TokenHashes(List.of());

    private final List<byte[]> hashes;

    private TokenHashes(List<byte[]> hashes) {
        this.hashes = List.copyOf(hashes);
    }

    /**
     * The hashes of {@code tokens} (each {@code sha256:<hex>}, checked by the configuration) and of the lines of
     * {@code tokensFile} when one is given.
     *
     * @param key the configuration key of the file, e.g. {@code auth.tokensFile}, for messages
     */
    public static TokenHashes load(List<String> tokens, Path tokensFile, String key) throws IOException {
        List<byte[]> hashes = new ArrayList<>();
        tokens.forEach(hash -> hashes.add(HexFormat.of().parseHex(hash.substring("sha256:".length()))));
        if (tokensFile != null) {
            List<String> lines;
            try {
                lines = Files.readAllLines(tokensFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IOException(key + ": cannot read " + tokensFile + ": " + e.getMessage(), e);
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                if (!AuthConfig.TOKEN_HASH.matcher(line).matches()) {
                    throw new IOException(key + " " + tokensFile + ", line " + (i + 1)
                            + ": not sha256:<64 hex digits> (the file holds hashes of tokens, never tokens)");
                }
                hashes.add(HexFormat.of().parseHex(line.substring("sha256:".length())));
            }
        }
        return new TokenHashes(hashes);
    }

    /** True when no token is known. */
    public boolean isEmpty() {
        return hashes.isEmpty();
    }

    /** True when {@code authorization} ({@code Bearer <token>}) carries one of these tokens. */
    public boolean accepts(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] presented = digest(authorization.substring(7));
        boolean accepted = false;
        for (byte[] hash : hashes) {
            accepted |= MessageDigest.isEqual(hash, presented);
        }
        return accepted;
    }

    /** {@code sha256:<hex>} of a token, as the configuration wants it. */
    public static String hash(String token) {
        return "sha256:" + HexFormat.of().formatHex(digest(token));
    }

    private static byte[] digest(String token) {
        return PackageHashes.sha256().digest(token.strip().getBytes(StandardCharsets.UTF_8));
    }
}
