package io.providermirror.upstream.transfer;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * One GET: the URL (its host names the server for TLS and the {@code Host} header), where to connect (the origin's
 * address, resolved and checked by the caller, or an egress proxy that is asked to reach the URL's host), the
 * request headers, and its bounds: {@code connectTimeout} for the TCP connection, {@code headTimeout} until the
 * response's head has arrived (connecting, the proxy's tunnel and TLS included), {@code readTimeout} for each wait
 * for more of the body.
 *
 * @param address the origin's resolved address when {@code proxy} is null; null otherwise
 * @param proxy   the egress proxy, or null to connect to {@code address}
 */
public record TransferRequest(
        URI uri,
        InetSocketAddress address,
        Proxy proxy,
        Map<String, String> headers,
        Duration connectTimeout,
        Duration headTimeout,
        Duration readTimeout) {

    /**
     * An HTTP proxy: https is tunnelled with {@code CONNECT host:port}, plain http asked for in absolute form;
     * {@code username} (with {@code password}) is sent as basic credentials, to the proxy only.
     *
     * @param address  the proxy's resolved address
     * @param username null for none
     */
    public record Proxy(InetSocketAddress address, String username, String password) {
        public Proxy {
            if (address.isUnresolved()) {
                throw new IllegalArgumentException("proxy address: " + address + " (expected: resolved)");
            }
        }

        @Override
        public String toString() {
            // The password stays out of every message and log line this record may end up in.
            return "Proxy[" + address + (username == null ? "" : ", " + username) + "]";
        }
    }

    public TransferRequest {
        Objects.requireNonNull(uri, "uri");
        String scheme = String.valueOf(uri.getScheme());
        if (!scheme.equalsIgnoreCase("https") && !scheme.equalsIgnoreCase("http") || uri.getHost() == null) {
            throw new IllegalArgumentException("uri: " + uri + " (expected: an http(s) URL with a host)");
        }
        if ((address == null) == (proxy == null)) {
            throw new IllegalArgumentException("address and proxy: exactly one is given");
        }
        if (address != null && address.isUnresolved()) {
            throw new IllegalArgumentException("address: " + address + " (expected: resolved, as the caller checked)");
        }
        headers = Map.copyOf(headers);
        for (Duration bound : new Duration[] {connectTimeout, headTimeout, readTimeout}) {
            if (bound.isNegative() || bound.isZero()) {
                throw new IllegalArgumentException("timeout: " + bound + " (expected: > 0)");
            }
        }
    }

    /** True for https. */
    boolean secure() {
        return uri.getScheme().equalsIgnoreCase("https");
    }

    /** The host name of the URL, an IPv6 literal without its brackets. */
    String host() {
        String host = uri.getHost();
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** The port of the URL, its scheme's default when it names none. */
    int port() {
        return uri.getPort() != -1 ? uri.getPort() : secure() ? 443 : 80;
    }
}
