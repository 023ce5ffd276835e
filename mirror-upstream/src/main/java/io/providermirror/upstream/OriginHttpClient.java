package io.providermirror.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The HTTP client towards origins: JSON documents and small files read whole (with a size cap and a deadline
 * that covers the body) through the JDK's client, archives opened as streams through Netty's
 * ({@link ArchiveTransport}: OpenSSL, and the body hashed and written from the buffers it arrived in). Each
 * request is a chain of stages with one job each: {@link RetryingSender} makes attempts within the deadline,
 * {@link RedirectFollower} follows redirects by hand (bounded, and the final URL known, since relative URLs resolve
 * against it), and every hop goes through {@link OriginDestinations}: http(s) only, never from https down to http,
 * and an internal address only when it is an authority configured for the origin (a provider hostname) the request
 * is made for ({@link InternalAuthorities}). Closing it stops the threads of the archive client.
 */
public final class OriginHttpClient implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OriginHttpClient.class);

    /**
     * How the client talks to origins. {@code requestTimeout} bounds one request, retries included: until its
     * response starts, and for a document until its whole body has arrived; {@code readTimeout} bounds each wait
     * for more of a body. {@code trust} holds the certificate authorities trusted for origins (the JDK's and
     * {@code upstream.trustedCertificates}), made when the first request needs them. {@code offline} refuses
     * every request without sending it; {@code internalAuthorities} says which internal destinations (host and
     * port) each origin may use: every other destination must be on the public internet. {@code nativeTransport}:
     * archives over epoll and OpenSSL when they load (as the server's listeners), else Java NIO and the JDK's TLS.
     */
    public record Settings(
            Duration connectTimeout,
            Duration requestTimeout,
            Duration readTimeout,
            OriginTrust trust,
            String userAgent,
            int maxRedirects,
            int maxDocumentBytes,
            RetryPolicy retry,
            boolean offline,
            InternalAuthorities internalAuthorities,
            OriginProxy proxy,
            boolean nativeTransport) {

        /** Settings with native transport when it loads. */
        public Settings(
                Duration connectTimeout,
                Duration requestTimeout,
                Duration readTimeout,
                OriginTrust trust,
                String userAgent,
                int maxRedirects,
                int maxDocumentBytes,
                RetryPolicy retry,
                boolean offline,
                InternalAuthorities internalAuthorities,
                OriginProxy proxy) {
            this(
                    connectTimeout,
                    requestTimeout,
                    readTimeout,
                    trust,
                    userAgent,
                    maxRedirects,
                    maxDocumentBytes,
                    retry,
                    offline,
                    internalAuthorities,
                    proxy,
                    true);
        }

        /** Settings that reach origins directly. */
        public Settings(
                Duration connectTimeout,
                Duration requestTimeout,
                Duration readTimeout,
                OriginTrust trust,
                String userAgent,
                int maxRedirects,
                int maxDocumentBytes,
                RetryPolicy retry,
                boolean offline,
                InternalAuthorities internalAuthorities) {
            this(
                    connectTimeout,
                    requestTimeout,
                    readTimeout,
                    trust,
                    userAgent,
                    maxRedirects,
                    maxDocumentBytes,
                    retry,
                    offline,
                    internalAuthorities,
                    null);
        }

        public Settings {
            if (connectTimeout.isNegative() || connectTimeout.isZero()) {
                throw new IllegalArgumentException("connectTimeout: " + connectTimeout + " (expected: > 0)");
            }
            if (readTimeout.isNegative() || readTimeout.isZero()) {
                throw new IllegalArgumentException("readTimeout: " + readTimeout + " (expected: > 0)");
            }
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout: " + requestTimeout + " (expected: > 0)");
            }
            if (maxRedirects < 0) {
                throw new IllegalArgumentException("maxRedirects: " + maxRedirects + " (expected: >= 0)");
            }
            java.util.Objects.requireNonNull(internalAuthorities, "internalAuthorities");
            java.util.Objects.requireNonNull(trust, "trust");
            if (maxDocumentBytes <= 0) {
                throw new IllegalArgumentException("maxDocumentBytes: " + maxDocumentBytes + " (expected: > 0)");
            }
        }
    }

    /** Resolves a host name to its addresses; tests substitute one that answers differently each time. */
    @FunctionalInterface
    interface Resolver {
        InetAddress[] resolve(String host) throws java.net.UnknownHostException;
    }

    /** Pauses between attempts; tests substitute one that records instead of sleeping. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /**
     * A whole response: its final URL after redirects, status, media type, body, and the module registry's
     * {@code X-Terraform-Get} header (null when absent).
     */
    public record Document(URI finalUri, int status, String contentType, byte[] body, String terraformGet) {

        /** A response without an {@code X-Terraform-Get} header. */
        public Document(URI finalUri, int status, String contentType, byte[] body) {
            this(finalUri, status, contentType, body, null);
        }

        /** True when the media type is {@code application/json}, parameters aside. */
        public boolean isJson() {
            return contentType != null
                    && contentType
                            .toLowerCase(Locale.ROOT)
                            .split(";", 2)[0]
                            .trim()
                            .equals("application/json");
        }
    }

    /**
     * An open archive response; the caller reads its body, as {@link #chunks()} (the buffers it arrived in) or as
     * the stream {@link #body()}, one of the two, and closes it.
     */
    public static final class ArchiveStream implements AutoCloseable {
        private final URI finalUri;
        private final OptionalLong contentLength;
        private final ArchiveChunks chunks;
        private final InputStream body;

        /** An archive whose body is a stream. */
        public ArchiveStream(URI finalUri, OptionalLong contentLength, InputStream body) {
            this(finalUri, contentLength, ArchiveChunks.of(body), body);
        }

        /** An archive whose body arrives in chunks. */
        public ArchiveStream(URI finalUri, OptionalLong contentLength, ArchiveChunks chunks) {
            this(finalUri, contentLength, chunks, ArchiveChunks.asStream(chunks));
        }

        private ArchiveStream(URI finalUri, OptionalLong contentLength, ArchiveChunks chunks, InputStream body) {
            this.finalUri = finalUri;
            this.contentLength = contentLength;
            this.chunks = chunks;
            this.body = body;
        }

        /** The URL that answered, after redirects. */
        public URI finalUri() {
            return finalUri;
        }

        /** The length the origin announced, if it did. */
        public OptionalLong contentLength() {
            return contentLength;
        }

        /** The body in the chunks it arrives in, for readers that can take buffers without copying them. */
        public ArchiveChunks chunks() {
            return chunks;
        }

        /** The body as a stream, each read waiting at most {@code upstream.readTimeout}. */
        public InputStream body() {
            return body;
        }

        @Override
        public void close() throws IOException {
            chunks.close();
        }
    }

    private final Settings settings;
    private final OriginObserver observer;
    /** Attempts, redirects and the destination check of every document request, in that order. */
    private final RetryingSender<DocumentTransport.DocumentHop> documents;
    /** The same for archives, through Netty's client. */
    private final RetryingSender<ArchiveTransport.ArchiveHop> archives;

    private final OriginTransports transports;
    private final OriginDestinations destinations;

    public OriginHttpClient(Settings settings) {
        this(settings, OriginObserver.NONE);
    }

    /** A client that reports every logical request to {@code observer}. */
    public OriginHttpClient(Settings settings, OriginObserver observer) {
        this(settings, duration -> Thread.sleep(duration.toMillis()), observer);
    }

    OriginHttpClient(Settings settings, Sleeper sleeper) {
        this(settings, sleeper, OriginObserver.NONE);
    }

    OriginHttpClient(Settings settings, Sleeper sleeper, OriginObserver observer) {
        this(settings, sleeper, observer, InetAddress::getAllByName);
    }

    OriginHttpClient(Settings settings, Sleeper sleeper, OriginObserver observer, Resolver resolver) {
        this.settings = settings;
        this.observer = observer;
        if ("0".equals(java.security.Security.getProperty("networkaddress.cache.ttl"))
                || "0".equals(System.getProperty("sun.net.inetaddr.ttl"))) {
            LOG.warn("networkaddress.cache.ttl is 0: the JVM does not keep resolved addresses, so the address an "
                    + "origin request connects to may differ from the one checked for being internal");
        }
        this.destinations = new OriginDestinations(settings.internalAuthorities(), settings.proxy(), resolver);
        this.transports = OriginTransports.of(settings, resolver);
        this.documents = new RetryingSender<>(
                new RedirectFollower<>(transports.documents(), settings, destinations), settings, sleeper);
        this.archives = new RetryingSender<>(
                new RedirectFollower<>(transports.archives(), settings, destinations), settings, sleeper);
    }

    /** Makes now what the first origin request would make on its own time ({@link OriginTransports}); not offline. */
    public void prepare() throws IOException {
        if (!settings.offline()) {
            transports.prepare();
        }
    }

    /** True once the clients towards origins, and so their trust, are made. */
    public boolean isPrepared() {
        return transports.isPrepared();
    }

    /**
     * GETs a document, following redirects; any status is returned, but a body larger than the cap is refused.
     * The whole exchange, attempts, pauses and body included, ends within {@code requestTimeout} (TIMEOUT).
     *
     * @param origin the provider hostname this request is made for, whose configured authorities it may use
     * @param what how to name this request in errors, e.g. "the version list of example.test/acme/foo"
     */
    public Document getDocument(String origin, URI uri, String what, OriginObserver.Operation operation) {
        return getDocument(origin, uri, what, operation, null);
    }

    /**
     * As {@link #getDocument(String, URI, String, OriginObserver.Operation)}, with {@code Authorization: Bearer}
     * when {@code bearerToken} is given: sent to {@code uri}'s authority only, never after a redirect to another one.
     */
    public Document getDocument(
            String origin, URI uri, String what, OriginObserver.Operation operation, String bearerToken) {
        long start = System.nanoTime();
        try {
            DocumentTransport.DocumentHop response =
                    documents.send(origin, uri, what, settings.requestTimeout(), bearerToken);
            // The request's deadline covers the body too: the JDK's timeout ends with the headers, and an origin
            // trickling its body a byte at a time would otherwise hold this thread for as long as it likes.
            Document document;
            try (TimedBodyStream body = new TimedBodyStream(
                    settings.readTimeout(), start + settings.requestTimeout().toNanos())) {
                response.response().body().subscribe(body);
                byte[] bytes = body.readNBytes(settings.maxDocumentBytes() + 1);
                if (bytes.length > settings.maxDocumentBytes()) {
                    throw new OriginException(
                            OriginException.Reason.BAD_RESPONSE,
                            what + " from " + response.uri() + " is larger than " + settings.maxDocumentBytes()
                                    + " bytes");
                }
                document = new Document(
                        response.uri(),
                        response.status(),
                        response.header("content-type").orElse(null),
                        bytes,
                        response.header("x-terraform-get").orElse(null));
            } catch (TimedBodyStream.DeadlineExceeded e) {
                throw new OriginException(
                        OriginException.Reason.TIMEOUT,
                        what + ": " + response.uri() + " (origin "
                                + origin + ") did not send its whole answer within "
                                + settings.requestTimeout().toMillis()
                                + " ms (upstream.requestTimeout); the mirror hung up",
                        e);
            } catch (java.net.SocketTimeoutException e) {
                throw new OriginException(
                        OriginException.Reason.TIMEOUT,
                        what + ": " + response.uri() + " (origin "
                                + origin + ") sent nothing for "
                                + settings.readTimeout().toMillis()
                                + " ms (upstream.readTimeout); the mirror hung up",
                        e);
            } catch (IOException e) {
                throw AttemptFailures.describe(uri, what, e, settings.proxy());
            }
            RequestReports.report(observer, settings.offline(), origin, uri, operation, start, document.status(), null);
            return document;
        } catch (OriginException e) {
            RequestReports.report(observer, settings.offline(), origin, uri, operation, start, 0, e);
            throw e;
        }
    }

    /**
     * GETs an archive and returns its open body, whose every read waits at most {@code readTimeout}; any status
     * other than 200 is an error. The body is read from the origin only as fast as the caller takes it.
     */
    public ArchiveStream openArchive(String origin, URI uri, String what) {
        return openArchive(origin, uri, what, null);
    }

    /** As {@link #openArchive(String, URI, String)}, with a bearer token for {@code uri}'s authority only. */
    public ArchiveStream openArchive(String origin, URI uri, String what, String bearerToken) {
        return openArchive(origin, uri, what, bearerToken, OriginObserver.Operation.ARCHIVE);
    }

    /**
     * As {@link #openArchive(String, URI, String, String)}, the request recorded as {@code operation}: what the
     * warm-up after start-up uses to send a discovery request through the archive client.
     */
    public ArchiveStream openArchive(
            String origin, URI uri, String what, String bearerToken, OriginObserver.Operation operation) {
        long start = System.nanoTime();
        try {
            ArchiveTransport.ArchiveHop response =
                    archives.send(origin, uri, what, settings.requestTimeout(), bearerToken);
            if (response.status() != 200) {
                response.discard();
                throw statusError(response.uri(), response.status(), what);
            }
            RequestReports.report(observer, settings.offline(), origin, uri, operation, start, response.status(), null);
            return new ArchiveStream(response.uri(), response.contentLength(), response);
        } catch (OriginException e) {
            RequestReports.report(observer, settings.offline(), origin, uri, operation, start, 0, e);
            throw e;
        }
    }

    /**
     * Throws an {@link OriginException} unless {@code uri} may be contacted on behalf of {@code origin}: for
     * clients other than this one (git) that must pass the same destination check before each connection.
     *
     * @return the address to connect to, the one that was checked (so that no second name lookup can lead the
     *     connection elsewhere); null when the host is configured for the origin and is connected to by name
     */
    public InetAddress checkDestination(String origin, URI uri, String what) {
        return destinations.check(origin, null, uri, what);
    }

    /** Stops the archive client's threads; requests in progress fail. */
    @Override
    public void close() {
        transports.archives().close();
    }

    /** The error for an unexpected status, naming the URL; it carries the status. */
    public static OriginException statusError(URI uri, int status, String what) {
        OriginException.Reason reason =
                status == 404 || status == 410 ? OriginException.Reason.NOT_FOUND : OriginException.Reason.UNAVAILABLE;
        String hint = status == 401 || status == 403
                ? " (it wants credentials, or refuses the mirror's: see upstream.hosts.<hostname>.token)"
                : "";
        return new OriginException(reason, what + ": " + uri + " answered HTTP " + status + hint, status);
    }

    /** True when both URLs name the same scheme, host and port (default ports spelled out or not). */
    public static boolean sameAuthority(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost().equalsIgnoreCase(b.getHost())
                && OriginDestinations.port(a) == OriginDestinations.port(b);
    }
}
