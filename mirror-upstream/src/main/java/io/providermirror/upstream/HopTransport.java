package io.providermirror.upstream;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * Sends one GET of one URL whose destination {@link OriginDestinations} allowed, and returns once its head arrived:
 * the JDK's client for documents ({@link DocumentTransport}), Netty's for archives ({@link ArchiveTransport}).
 */
interface HopTransport<H extends Hop> {

    /**
     * Sends the GET, its answer to start within {@code timeout}.
     *
     * @param checked the address the destination check resolved the host to and found allowed, or null when the
     *                host is configured for the origin (or left to the proxy) and was not resolved
     */
    H send(URI uri, InetAddress checked, Map<String, String> headers, Duration timeout)
            throws IOException, InterruptedException;

    /**
     * True when a request for {@code uri} connects to the checked address itself, so that no later name lookup can
     * lead it elsewhere; false when the client resolves the name again (or a proxy does), so the check is repeated
     * once the answer arrived.
     */
    boolean connectsToCheckedAddress(URI uri);
}
