package io.providermirror.server.config;

/**
 * The mirror's listener: address, port, the certificate to present (generated when absent, as
 * {@code generatedTls} says) or plain HTTP
 * behind a TLS-terminating load balancer, how long a client may take to send a request or stay silent, how
 * long a client waits at most for a metadata answer, how long transfers in progress may finish when the
 * mirror is told to stop, whether Linux epoll and OpenSSL are used when available, and how many connections
 * the listener holds at once ({@code maxConnections}); {@code publicUrl}: the URLs clients reach the mirror by
 * (behind a load balancer, say), the first of which the banner and the status page advertise.
 */
public record ServerConfig(
        String host,
        Integer port,
        TlsConfig tls,
        GeneratedTlsConfig generatedTls,
        java.time.Duration requestReadTimeout,
        java.time.Duration idleTimeout,
        java.time.Duration metadataTimeout,
        java.time.Duration shutdownGracePeriod,
        Boolean plainHttp,
        Boolean nativeTransport,
        Integer maxConnections,
        java.util.List<java.net.URI> publicUrl) {

    /** The default port; HTTPS. */
    public static final int DEFAULT_PORT = 8443;
    /**
     * The CLI gives up on a JSON request after about 10 s (TLS handshake included): answer, or say why not,
     * before that.
     */
    public static final java.time.Duration DEFAULT_METADATA_TIMEOUT = java.time.Duration.ofSeconds(8);
    /** How long archive transfers in progress may go on after a SIGTERM. */
    public static final java.time.Duration DEFAULT_SHUTDOWN_GRACE_PERIOD = java.time.Duration.ofSeconds(30);
    /**
     * Connections a listener holds at once; more are closed as they are accepted. Far above what the clients of
     * one mirror open, and below the usual {@code ulimit -n} of a service (65536) with room for cache files.
     */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

    public ServerConfig {
        host = host == null ? "0.0.0.0" : host;
        generatedTls = generatedTls == null ? GeneratedTlsConfig.defaults() : generatedTls;
        port = port == null ? DEFAULT_PORT : port;
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0 to 65535; 0 picks a free port)");
        }
        requestReadTimeout = requestReadTimeout == null ? java.time.Duration.ofSeconds(30) : requestReadTimeout;
        idleTimeout = idleTimeout == null ? java.time.Duration.ofMinutes(2) : idleTimeout;
        if (requestReadTimeout.isZero() || requestReadTimeout.isNegative()) {
            throw new IllegalArgumentException("requestReadTimeout: " + requestReadTimeout + " (expected: > 0)");
        }
        metadataTimeout = metadataTimeout == null ? DEFAULT_METADATA_TIMEOUT : metadataTimeout;
        shutdownGracePeriod = shutdownGracePeriod == null ? DEFAULT_SHUTDOWN_GRACE_PERIOD : shutdownGracePeriod;
        if (shutdownGracePeriod.isNegative()) {
            throw new IllegalArgumentException("shutdownGracePeriod: " + shutdownGracePeriod + " (expected: >= 0)");
        }
        if (metadataTimeout.isZero() || metadataTimeout.isNegative()) {
            throw new IllegalArgumentException("metadataTimeout: " + metadataTimeout + " (expected: > 0)");
        }
        if (idleTimeout.isZero() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout: " + idleTimeout + " (expected: > 0)");
        }
        maxConnections = maxConnections == null ? DEFAULT_MAX_CONNECTIONS : maxConnections;
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: > 0)");
        }
        plainHttp = plainHttp != null && plainHttp;
        nativeTransport = nativeTransport == null || nativeTransport;
        if (plainHttp && tls != null) {
            throw new IllegalArgumentException("plainHttp: true together with tls (expected: one of them; with "
                    + "plainHttp the load balancer in front holds the certificate)");
        }
        java.util.List<java.net.URI> urls = new java.util.ArrayList<>();
        for (java.net.URI url : publicUrl == null ? java.util.List.<java.net.URI>of() : publicUrl) {
            urls.add(publicUrl(url));
        }
        publicUrl = java.util.List.copyOf(urls);
        if (host.isBlank()) {
            throw new IllegalArgumentException("host: empty (expected: an address to listen on, e.g. 0.0.0.0)");
        }
    }

    /** {@code url} as the mirror advertises it: {@code https://host[:port][/prefix]}, no trailing slash. */
    private static java.net.URI publicUrl(java.net.URI url) {
        if (url == null
                || !"https".equals(url.getScheme())
                || url.getHost() == null
                || url.getRawUserInfo() != null
                || url.getRawQuery() != null
                || url.getRawFragment() != null) {
            throw new IllegalArgumentException(
                    "publicUrl: '" + url + "' (expected: https://host[:port][/path], the URL "
                            + "clients reach the mirror by, without user, query or fragment; the CLI refuses http: mirrors)");
        }
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return java.net.URI.create("https://" + url.getRawAuthority().toLowerCase(java.util.Locale.ROOT) + path);
    }

    /**
     * What the banner and the status page put after {@code https://} when a request does not say: the first public
     * URL's authority and path, else {@code fallback}.
     */
    public String advertisedAuthority(String fallback) {
        if (publicUrl.isEmpty()) {
            return fallback;
        }
        java.net.URI first = publicUrl.get(0);
        return first.getRawAuthority() + (first.getRawPath() == null ? "" : first.getRawPath());
    }

    /** The host names and addresses of the public URLs, which the generated certificate must name. */
    public java.util.List<String> publicHostNames() {
        return publicUrl.stream().map(java.net.URI::getHost).distinct().toList();
    }
}
