package io.providermirror.server.config;

import java.nio.file.Path;

/**
 * The credential for one git host over https: a token read from {@code tokenFile} (never logged), sent as the
 * password of HTTP basic authentication with {@code username} ({@code x-access-token} unless set; GitHub, GitLab
 * and Gitea accept a token with any user name).
 */
public record GitHostConfig(Path tokenFile, String username) {

    public GitHostConfig {
        if (tokenFile == null) {
            throw new IllegalArgumentException("tokenFile: missing (expected: the path of a file holding the token)");
        }
        username = username == null || username.isBlank() ? "x-access-token" : username;
    }
}
