package io.providermirror.upstream.transfer;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Exactly where a connection leads: the checked address and port it connects to (or the egress proxy and the
 * destination its tunnel was asked for), the host name TLS verified and sent as SNI, and whether it is TLS at all.
 * A kept connection serves only a request with an equal route, so reuse never carries a request past the
 * destination check that allowed the first one.
 *
 * @param address the origin's checked address, or null through a proxy
 * @param proxy   the egress proxy (its credentials included), or null
 */
record ConnectionRoute(InetSocketAddress address, String host, int port, boolean secure, TransferRequest.Proxy proxy) {

    static ConnectionRoute of(TransferRequest request) {
        return new ConnectionRoute(
                request.address(), request.host(), request.port(), request.secure(), request.proxy());
    }

    /** {@code host:port}, for messages. */
    String destination() {
        return host + ":" + port;
    }

    boolean tunnelled() {
        return proxy != null && secure;
    }

    /** What the socket connects to: the checked address, the proxy, or (for a tunnel) the name the proxy is asked for. */
    SocketAddress remote() {
        if (proxy == null) {
            return address;
        }
        // The proxy handler connects to the proxy and asks it for this destination, by name.
        return tunnelled() ? InetSocketAddress.createUnresolved(host, port) : proxy.address();
    }
}
