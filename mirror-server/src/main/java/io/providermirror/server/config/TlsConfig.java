package io.providermirror.server.config;

import java.nio.file.Path;

/** A PEM certificate chain and its PEM private key (PKCS#8, or PKCS#1 RSA). */
public record TlsConfig(Path certificate, Path privateKey) {

    public TlsConfig {
        if (certificate == null) {
            throw new IllegalArgumentException("certificate: missing (expected: the path of a PEM certificate chain)");
        }
        if (privateKey == null) {
            throw new IllegalArgumentException("privateKey: missing (expected: the path of a PEM private key)");
        }
    }
}
