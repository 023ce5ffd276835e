package io.providermirror.server.tls;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

    /** Whether the server certificate is valid for {@code host} (a name or an address), as a client checks it. */
    public boolean names(String host) {
        return covers(names(chain.get(0)), host);
    }

    /** The subject alternative names of {@code certificate}, in lower case. */
    static List<String> names(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            if (certificate.getSubjectAlternativeNames() != null) {
                for (List<?> name : certificate.getSubjectAlternativeNames()) {
                    names.add(String.valueOf(name.get(1)).toLowerCase(Locale.ROOT));
                }
            }
        } catch (CertificateParsingException e) {
            // No readable names: it names nothing.
        }
        return names;
    }

    /** Whether one of {@code names} (a wildcard covering one label) is {@code host}. */
    static boolean covers(List<String> names, String host) {
        String lower = host.toLowerCase(Locale.ROOT);
        for (String name : names) {
            if (name.equals(lower)
                    || name.startsWith("*.")
                            && lower.endsWith(name.substring(1))
                            && lower.indexOf('.') == lower.length() - name.length() + 1) {
                return true;
            }
        }
        return false;
    }
}
