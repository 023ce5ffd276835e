package io.providermirror.server.tls;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * The certificate chain and key the HTTPS listener presents, and, when the mirror generated them, the path of
 * the CA certificate that clients must trust.
 */
public record ServerIdentity(List<X509Certificate> chain, PrivateKey privateKey, Optional<Path> generatedCa) {
    public ServerIdentity {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("chain: empty (expected: at least the server certificate)");
        }
    }
}
