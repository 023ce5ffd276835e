package io.providermirror.server.config;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Settings for one origin hostname: where its discovery document is (or which network mirror stands in for
 * it), the bearer token its registry wants, how its releases must be signed, and the other hosts its documents
 * may lead to although they are internal ({@code downloadHosts}).
 */
public record HostConfig(
        URI discoveryUrl,
        URI mirrorUrl,
        String token,
        Path tokenFile,
        Boolean allowUnsigned,
        List<String> trustedKeys,
        List<String> downloadHosts) {

    public HostConfig {
        checkUrl("discoveryUrl", discoveryUrl);
        checkUrl("mirrorUrl", mirrorUrl);
        if (discoveryUrl != null && mirrorUrl != null) {
            throw new IllegalArgumentException("discoveryUrl and mirrorUrl: both set (expected: one of them; with "
                    + "mirrorUrl the host is not discovered at all)");
        }
        if (token != null && tokenFile != null) {
            throw new IllegalArgumentException("token and tokenFile: both set (expected: one of them)");
        }
        if (token != null && token.isBlank()) {
            throw new IllegalArgumentException("token: empty (expected: the bearer token, or leave it out)");
        }
        trustedKeys = trustedKeys == null ? List.of() : List.copyOf(trustedKeys);
        if (mirrorUrl != null && !trustedKeys.isEmpty()) {
            throw new IllegalArgumentException(
                    "trustedKeys: set with mirrorUrl (expected: one of them; a network mirror "
                            + "publishes hashes, not signatures, so there is no key to pin)");
        }
        new io.providermirror.upstream.verify.SignaturePolicy(false, java.util.Set.copyOf(trustedKeys));
        downloadHosts = downloadHosts == null ? List.of() : List.copyOf(downloadHosts);
        for (String host : downloadHosts) {
            if (!io.providermirror.model.ProviderAddress.isValidHostname(host)) {
                throw new IllegalArgumentException(
                        "downloadHosts: '" + host
                                + "' (expected: a lowercase host name or IPv4 address, optionally with :port, e.g. artifacts.corp)");
            }
        }
    }

    /** A host configured only for where its discovery document is. */
    public static HostConfig discoveredAt(URI discoveryUrl) {
        return new HostConfig(discoveryUrl, null, null, null, null, null, null);
    }

    private static void checkUrl(String key, URI url) {
        if (url == null) {
            return;
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("https") || scheme.equals("http")) || url.getHost() == null) {
            throw new IllegalArgumentException(
                    key + ": '" + url + "' (expected: an absolute https URL such as https://registry.example.com/)");
        }
    }
}
