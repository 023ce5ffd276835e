package io.providermirror.upstream.transfer;

import java.io.IOException;

/** The egress proxy answered {@code CONNECT} with a status other than 200: there is no tunnel to the origin. */
public final class TunnelRefused extends IOException {

    private static final long serialVersionUID = 1L;

    private final int status;

    TunnelRefused(String destination, int status, Throwable cause) {
        super("the proxy answered CONNECT " + destination + " with HTTP " + status + "; no tunnel", cause);
        this.status = status;
    }

    /** The proxy's status: 407 (or 401 from some proxies) when it wants other credentials. */
    public int status() {
        return status;
    }
}
