package io.providermirror.server.config;

/** The HTTPS listener: address, port, and the certificate to present (generated when absent). */
public record ServerConfig(String host, Integer port, TlsConfig tls) {

    /** The default port; HTTPS. */
    public static final int DEFAULT_PORT = 8443;

    public ServerConfig {
        host = host == null ? "0.0.0.0" : host;
        port = port == null ? DEFAULT_PORT : port;
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0 to 65535; 0 picks a free port)");
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException("host: empty (expected: an address to listen on, e.g. 0.0.0.0)");
        }
    }
}
