package io.providermirror.server.config;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP proxy origin traffic goes through (HTTPS by {@code CONNECT}), with optional basic credentials,
 * and the hosts that bypass it ({@code NO_PROXY} syntax: host names, {@code .domain} suffixes, IP addresses,
 * CIDR ranges, {@code *}). Without a url, the {@code HTTPS_PROXY} / {@code NO_PROXY} environment variables apply.
 */
public record ProxyConfig(URI url, String username, String password, Path passwordFile, List<String> noProxy) {

    public ProxyConfig {
        if (url != null) {
            String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") || url.getHost() == null) {
                throw new IllegalArgumentException("url: '" + url
                        + "' (expected: an http URL of the proxy such as http://proxy.corp.example:3128)");
            }
        }
        if (password != null && passwordFile != null) {
            throw new IllegalArgumentException("password and passwordFile: both set (expected: one of them)");
        }
        if ((password != null || passwordFile != null) && username == null) {
            throw new IllegalArgumentException("username: missing (expected: with a password, the user it belongs to)");
        }
        noProxy = noProxy == null ? null : List.copyOf(noProxy);
    }
}
