package io.providermirror.upstream;

import io.providermirror.upstream.transfer.TunnelRefused;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * What an I/O failure of a request to an origin means: the error a user reads (naming the proxy when it was the
 * proxy that failed, the CA setting when TLS did), and whether another attempt may help.
 */
final class AttemptFailures {

    /** How the JDK reports a proxy that refused a tunnel for want of credentials (407, or 401 from some proxies). */
    private static final Pattern PROXY_REFUSED_CREDENTIALS = Pattern.compile("Tunnel failed, got: 40[17]");

    private AttemptFailures() {}

    /** Whether another attempt may succeed where this one failed with {@code e}. */
    static boolean retryable(IOException e) {
        // A timed-out attempt used up the deadline; a TLS failure will not heal by itself.
        boolean retryable = !(e instanceof HttpTimeoutException) || e instanceof HttpConnectTimeoutException;
        retryable &= !(e instanceof SSLException || e.getCause() instanceof SSLException);
        retryable &= !refusedCredentials(e);
        return retryable;
    }

    /**
     * True when the proxy refused a tunnel for want of credentials: as the JDK's client reports it, or Netty's
     * (archives).
     */
    private static boolean refusedCredentials(IOException e) {
        if (e instanceof TunnelRefused refused) {
            return refused.status() == 407 || refused.status() == 401;
        }
        return PROXY_REFUSED_CREDENTIALS.matcher(String.valueOf(e.getMessage())).find();
    }

    /** The error for {@code e}, the failure of a request for {@code what} to {@code uri}; {@code proxy} may be null. */
    static OriginException describe(URI uri, String what, IOException e, OriginProxy proxy) {
        if (proxy != null && !proxy.bypasses(uri.getHost())) {
            String message = String.valueOf(e.getMessage());
            if (refusedCredentials(e)) {
                return new OriginException(
                        OriginException.Reason.UNAVAILABLE,
                        what + ": the proxy " + proxy.describe()
                                + " refused the mirror's credentials (" + message
                                + "); check upstream.proxy.username and "
                                + "password, or the credentials in HTTPS_PROXY",
                        e);
            }
            if (e instanceof ConnectException || e instanceof HttpConnectTimeoutException) {
                return new OriginException(
                        OriginException.Reason.UNAVAILABLE,
                        what + ": cannot connect to the proxy " + proxy.describe() + " (upstream.proxy): " + message,
                        e);
            }
            if (message.contains("Tunnel failed") || message.contains("tunnel")) {
                return new OriginException(
                        OriginException.Reason.UNAVAILABLE,
                        what + ": the proxy " + proxy.describe() + " would not open a tunnel to " + uri.getAuthority()
                                + ": " + message,
                        e);
            }
        }
        if (e instanceof HttpConnectTimeoutException) {
            return new OriginException(
                    OriginException.Reason.TIMEOUT, what + ": connecting to " + uri.getAuthority() + " timed out", e);
        }
        if (e instanceof HttpTimeoutException) {
            return new OriginException(
                    OriginException.Reason.TIMEOUT, what + ": " + uri + " did not answer in time", e);
        }
        if (e instanceof ConnectException) {
            return new OriginException(
                    OriginException.Reason.UNAVAILABLE, what + ": cannot connect to " + uri.getAuthority(), e);
        }
        if (e instanceof SSLException || e.getCause() instanceof SSLException) {
            return new OriginException(
                    OriginException.Reason.UNAVAILABLE,
                    what + ": TLS with " + uri.getAuthority() + " failed (" + e.getMessage()
                            + "); is its CA in upstream.trustedCertificates?",
                    e);
        }
        return new OriginException(
                OriginException.Reason.UNAVAILABLE, what + ": request to " + uri + " failed: " + e, e);
    }
}
