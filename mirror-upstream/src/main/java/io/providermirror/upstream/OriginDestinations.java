package io.providermirror.upstream;

import java.net.InetAddress;
import java.net.URI;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides where a request made on behalf of an origin may go, for the first hop and every redirect: only
 * http(s), never from https down to http, and an internal address (or a name this machine cannot resolve,
 * which would be left to the egress proxy) only when it is exactly an authority configured for that origin.
 * A refused destination is never connected to, so the answer does not depend on what listens there.
 */
final class OriginDestinations {

    /** Logged under the client's name, as before this check had a class of its own: operators filter on it. */
    private static final Logger LOG = LoggerFactory.getLogger(OriginHttpClient.class);

    private final InternalAuthorities internalAuthorities;
    private final OriginProxy proxy;
    private final OriginHttpClient.Resolver resolver;

    /** @param proxy the egress proxy, or null when origins are reached directly */
    OriginDestinations(InternalAuthorities internalAuthorities, OriginProxy proxy, OriginHttpClient.Resolver resolver) {
        this.internalAuthorities = internalAuthorities;
        this.proxy = proxy;
        this.resolver = resolver;
    }

    /**
     * Throws unless {@code uri} may be contacted on behalf of {@code origin}; {@code from} is the URL that
     * redirected to it, else null.
     *
     * @return the address the host resolved to (the first, which a client connects to), all of whose addresses
     *         were found allowed; null when the host is configured for the origin, which is allowed unresolved
     */
    InetAddress check(String origin, URI from, URI uri, String what) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
            throw new Refused(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": the origin " + origin + (from == null ? " named '" : " redirected to '") + uri
                            + "', which is not an http(s) URL");
        }
        if (from != null && from.getScheme().equalsIgnoreCase("https") && scheme.equals("http")) {
            throw new Refused(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": the origin " + origin + " redirected from https to plain http (" + uri.getAuthority()
                            + "); the mirror does not follow that");
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (internalAuthorities.allows(origin, host, port(uri))) {
            return null;
        }
        InetAddress[] addresses;
        try {
            // Archives connect to the address returned here, so no later lookup can lead them elsewhere. The JDK's
            // client for documents resolves again, through the JVM's address cache (networkaddress.cache.ttl, 30 s
            // by default) that this lookup filled: it normally connects to an address checked here.
            addresses = resolver.resolve(host);
        } catch (java.net.UnknownHostException e) {
            String proxied = proxy != null && !proxy.bypasses(host)
                    ? "; behind the proxy " + proxy.describe() + " only hosts configured for " + origin
                            + " under upstream.hosts are left to it to resolve"
                    : "";
            throw new OriginException(
                    OriginException.Reason.UNAVAILABLE, what + ": cannot resolve " + host + proxied, e);
        }
        for (InetAddress address : addresses) {
            if (InternalAddresses.isInternal(address)) {
                // The address stays in the log: clients are not told what internal names resolve to.
                LOG.warn(
                        "{}: {} resolves to the internal address {}, which is not configured for the origin {}",
                        what,
                        host,
                        address.getHostAddress(),
                        origin);
                throw new Refused(
                        OriginException.Reason.FORBIDDEN,
                        what + ": " + host + " resolves to an "
                                + "internal address; an internal address is contacted only "
                                + "when its host and port (" + uri.getAuthority() + ") are configured for the origin "
                                + origin
                                + " under upstream.hosts (its own name, discoveryUrl, mirrorUrl or downloadHosts)");
            }
        }
        return addresses[0];
    }

    /** The port {@code uri} connects to, its scheme's default when it names none. */
    static int port(URI uri) {
        return uri.getPort() != -1 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    /** A destination refused before anything was sent to it; not the origin's failure, so not counted as one. */
    static final class Refused extends OriginException {
        private static final long serialVersionUID = 1L;

        Refused(Reason reason, String message) {
            super(reason, message);
        }
    }
}
