package io.providermirror.upstream.git;

import java.net.InetAddress;
import java.net.URI;

/**
 * The destination check every connection git makes passes before it is made, redirects included: the mirror's
 * check of origin requests ({@code OriginHttpClient::checkDestination}), so git reaches exactly what any other
 * request made for that origin may reach.
 */
@FunctionalInterface
public interface GitDestinations {

    /**
     * Throws an {@code OriginException} unless {@code uri} may be contacted on behalf of {@code origin}.
     *
     * @return the address to connect to, the one that was checked; null to connect by name (a host configured for
     *     the origin)
     */
    InetAddress check(String origin, URI uri, String what);
}
