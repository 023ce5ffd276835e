package io.providermirror.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Builds the TLS trust used towards origins: the JDK's default certificate authorities plus, optionally,
 * the certificates of a PEM bundle (a corporate CA, or a test origin's CA).
 */
public final class TrustedCertificates {

    private TrustedCertificates() {}

    /** An SSL context trusting the JDK's authorities and every certificate in {@code extraPemBundle}. */
    public static SSLContext sslContext(Path extraPemBundle) throws IOException {
        return sslContext(trustManager(extraPemBundle));
    }

    /** An SSL context trusting what {@code trust} trusts, for the JDK's HTTP client. */
    public static SSLContext sslContext(X509TrustManager trust) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {trust}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no TLS context: " + e.getMessage(), e);
        }
    }

    /**
     * The trust manager behind {@link #sslContext}, for clients that take trust managers rather than a context
     * (JGit's HTTP connections, Netty's client for archives).
     */
    public static X509TrustManager trustManager(Path extraPemBundle) throws IOException {
        return trustManager(extraPemBundle == null ? List.of() : readBundle(extraPemBundle));
    }

    /**
     * A trust manager trusting the JDK's authorities and {@code extra}. It reads the JDK's whole CA store, which
     * is why {@link OriginTrust} makes it only when it is needed or prepared for, never on start-up's path.
     */
    static X509TrustManager trustManager(Collection<? extends Certificate> extra) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int index = 0;
            for (X509Certificate ca : defaultTrustManager().getAcceptedIssuers()) {
                store.setCertificateEntry("jdk-" + index++, ca);
            }
            for (Certificate certificate : extra) {
                store.setCertificateEntry("extra-" + index++, certificate);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            for (TrustManager manager : factory.getTrustManagers()) {
                if (manager instanceof X509TrustManager x509) {
                    return x509;
                }
            }
            throw new GeneralSecurityException("the JDK offers no X.509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build the TLS trust for origins: " + e.getMessage(), e);
        }
    }

    /** Reads every certificate of a PEM bundle meant to be trusted, refusing one that holds none. */
    public static Collection<? extends Certificate> readBundle(Path pemBundle) throws IOException {
        Collection<? extends Certificate> certificates = readPem(pemBundle);
        if (certificates.isEmpty()) {
            throw new IOException(pemBundle + " holds no PEM certificate");
        }
        return certificates;
    }

    /** Reads every certificate of a PEM bundle. */
    public static Collection<? extends Certificate> readPem(Path pemBundle) throws IOException {
        try (InputStream in = Files.newInputStream(pemBundle)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (GeneralSecurityException e) {
            throw new IOException(pemBundle + " is not a PEM certificate bundle: " + e.getMessage(), e);
        }
    }

    private static X509TrustManager defaultTrustManager() throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init((KeyStore) null);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("the JDK offers no X.509 trust manager");
    }
}
