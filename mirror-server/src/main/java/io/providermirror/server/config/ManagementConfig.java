package io.providermirror.server.config;

/**
 * The optional plain-HTTP listener for scrapers and probes inside a cluster: {@code /metrics},
 * {@code /healthz} and {@code /readyz} only. Off unless {@code port} is set.
 */
public record ManagementConfig(String host, Integer port) {

    public ManagementConfig {
        host = host == null ? "0.0.0.0" : host;
        if (host.isBlank()) {
            throw new IllegalArgumentException("host: empty (expected: an address to listen on, e.g. 0.0.0.0)");
        }
        if (port != null && (port < 0 || port > 65535)) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0 to 65535; 0 picks a free port)");
        }
    }

    /** True when the management listener is wanted. */
    public boolean enabled() {
        return port != null;
    }
}
