package io.providermirror.upstream.git;

import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.eclipse.jgit.transport.http.HttpConnection;
import org.eclipse.jgit.transport.http.HttpConnectionFactory2;

/**
 * Every connection of one git fetch, made only after its URL passed the destination check for the module's origin
 * (the first request, each redirect JGit follows, each object and pack), to exactly the address that was checked.
 * The credential goes to the repository's own authority and nowhere else. Git alternates (another repository named
 * in {@code objects/info/alternates} or {@code objects/info/http-alternates}) are not followed, as git does not
 * by default: their list is never even requested. The first refusal is kept, so the fetch reports it rather than
 * JGit's view of a connection that failed.
 */
final class GitConnections implements HttpConnectionFactory2 {

    private static final List<String> ALTERNATES = List.of("/objects/info/alternates", "/objects/info/http-alternates");

    private final String origin;
    private final URI repository;
    private final GitDestinations destinations;
    private final Supplier<? extends X509TrustManager> trust;
    private final ProxySelector proxy;
    private final GitCredential credential;
    /** The pace every response body of the fetch must keep together. */
    private final PacedInputStream.Pace pace;
    /** One socket factory per host, port and checked address, so JDK keep-alive reuses only those. */
    private final Map<String, CheckedAddressSockets> sockets = new HashMap<>();

    private SSLSocketFactory tls;
    private OriginException refusedDestination;
    private String refusal;

    /**
     * @param proxy the mirror's egress proxy, or null to connect directly (never through the JVM's default)
     * @param credential the credential for {@code repository}'s authority, or null
     * @param pace the pace the fetch's response bodies must keep together
     */
    GitConnections(
            String origin,
            URI repository,
            GitDestinations destinations,
            Supplier<? extends X509TrustManager> trust,
            ProxySelector proxy,
            GitCredential credential,
            PacedInputStream.Pace pace) {
        this.pace = pace;
        this.origin = origin;
        this.repository = repository;
        this.destinations = destinations;
        this.trust = trust;
        this.proxy = proxy;
        this.credential = credential;
    }

    @Override
    public HttpConnection create(URL url) throws IOException {
        return create(url, null);
    }

    /** JGit's choice of proxy (the JVM's default) is replaced by the mirror's. */
    @Override
    public synchronized HttpConnection create(URL url, Proxy ignored) throws IOException {
        URI uri;
        try {
            uri = url.toURI();
        } catch (URISyntaxException e) {
            throw refuse("git was led to an invalid URL: " + url);
        }
        if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw refuse(repository + " led git to " + uri + "; git module sources are fetched over https only");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        if (ALTERNATES.stream().anyMatch(path::endsWith)) {
            throw refuse(repository + " does not hold all the objects of the ref itself and would borrow them from "
                    + "another repository through git alternates (objects/info/alternates, objects/info/http-alternates), "
                    + "which the mirror does not follow (as git does not by default)");
        }
        InetAddress address;
        try {
            address = destinations.check(origin, uri, "the git source " + repository);
        } catch (OriginException e) {
            if (refusedDestination == null) {
                refusedDestination = e;
            }
            throw new IOException(e.getMessage(), e);
        }
        boolean own = OriginHttpClient.sameAuthority(uri, repository);
        return new GitConnection(
                url,
                proxyFor(uri),
                sockets(uri, address),
                own && credential != null ? credential.authorization() : null,
                pace);
    }

    /** Rethrows the first refusal, if there was one: the reason a failed fetch failed. */
    synchronized void throwIfRefused() throws GitFetchException {
        if (refusedDestination != null) {
            throw refusedDestination;
        }
        if (refusal != null) {
            throw new GitFetchException(refusal);
        }
    }

    private IOException refuse(String message) {
        if (refusal == null && refusedDestination == null) {
            refusal = message;
        }
        return new IOException(message);
    }

    private CheckedAddressSockets sockets(URI uri, InetAddress address) throws IOException {
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort() == -1 ? 443 : uri.getPort();
        String key = host + ":" + port + "@" + (address == null ? "" : address.getHostAddress());
        CheckedAddressSockets existing = sockets.get(key);
        if (existing != null) {
            return existing;
        }
        CheckedAddressSockets made = new CheckedAddressSockets(tls(), host, port, address);
        sockets.put(key, made);
        return made;
    }

    private SSLSocketFactory tls() throws IOException {
        if (tls == null) {
            try {
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, new TrustManager[] {trust.get()}, null);
                tls = context.getSocketFactory();
            } catch (java.io.UncheckedIOException e) {
                throw e.getCause();
            } catch (GeneralSecurityException e) {
                throw new IOException("cannot apply the mirror's TLS trust: " + e.getMessage(), e);
            }
        }
        return tls;
    }

    private Proxy proxyFor(URI uri) {
        if (proxy == null) {
            return Proxy.NO_PROXY;
        }
        List<Proxy> proxies = proxy.select(uri);
        return proxies.isEmpty() ? Proxy.NO_PROXY : proxies.get(0);
    }

    @Override
    public GitSession newSession() {
        return new GitSession() {
            @Override
            public HttpConnection configure(HttpConnection connection, boolean sslVerify) {
                return connection; // http.sslVerify cannot turn the mirror's verification off
            }

            @Override
            public void close() {}
        };
    }
}
