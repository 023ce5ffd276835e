package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509TrustManager;

/**
 * The TLS trust towards origins: the JDK's certificate authorities plus those of an optional PEM bundle
 * ({@code upstream.trustedCertificates}). The bundle is read and checked when this is made, at start-up, so a bad
 * one still stops the mirror; the trust itself, which reads the JDK's whole CA store, and its TLS context are made
 * later, off start-up's path: by {@link OriginHttpClient#prepare()} once the server answers, or when an origin is
 * first reached, whichever comes first.
 */
public final class OriginTrust {

    private final Memoized<X509TrustManager> trustManager;
    private final Memoized<SSLContext> sslContext;

    private OriginTrust(Collection<? extends Certificate> extra) {
        List<Certificate> bundle = List.copyOf(extra);
        this.trustManager = new Memoized<>(() -> {
            try {
                return TrustedCertificates.trustManager(bundle);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        this.sslContext = new Memoized<>(() -> TrustedCertificates.sslContext(trustManager.get()));
    }

    /**
     * Trust in the JDK's authorities and every certificate of {@code extraPemBundle} (null: none), the bundle read
     * now.
     *
     * @throws IOException when the bundle cannot be read, is not PEM or holds no certificate, naming its path
     */
    public static OriginTrust of(Path extraPemBundle) throws IOException {
        return new OriginTrust(extraPemBundle == null ? List.of() : TrustedCertificates.readBundle(extraPemBundle));
    }

    /** The trust manager, for clients that take one (Netty's for archives, JGit's connections); made on first use. */
    public X509TrustManager trustManager() {
        return trustManager.get();
    }

    /** A TLS context with that trust, for the JDK's HTTP client; made on first use. */
    public SSLContext sslContext() {
        return sslContext.get();
    }

    /** True once the trust has been made, i.e. once something reached, or prepared to reach, an origin over TLS. */
    boolean isMade() {
        return trustManager.isMade();
    }
}
