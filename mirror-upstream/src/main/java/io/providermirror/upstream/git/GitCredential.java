package io.providermirror.upstream.git;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code Authorization} header sent to one git host. Its value never appears in {@link #toString()}, so a
 * credential that reaches a log message shows as redacted.
 */
public record GitCredential(String authorization) {

    public GitCredential {
        if (authorization.isBlank() || authorization.contains("\r") || authorization.contains("\n")) {
            throw new IllegalArgumentException("a git credential must be one non-blank header line");
        }
    }

    /** {@code Authorization: Bearer <token>}. */
    public static GitCredential bearer(String token) {
        return new GitCredential("Bearer " + token);
    }

    /** {@code Authorization: Basic <user:password>}, as git hosts take a token for a password. */
    public static GitCredential basic(String user, String password) {
        return new GitCredential("Basic "
                + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public String toString() {
        return "GitCredential[redacted]";
    }
}
