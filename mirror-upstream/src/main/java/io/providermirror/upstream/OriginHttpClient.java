package io.providermirror.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The HTTP client towards origins: JSON documents and small files read whole (with a size cap), archives
 * opened as streams. Redirects are followed by hand so that their number is bounded and the final URL,
 * against which relative URLs resolve, is known. Every request is made on behalf of one origin (a provider
 * hostname), and every hop of it, redirects included, goes through one destination check
 * ({@link #checkDestination}): http(s) only, never from https down to http, and an internal address only when
 * it is an authority configured for that origin ({@link InternalAuthorities}).
 */
public final class OriginHttpClient {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OriginHttpClient.class);

    /**
     * How the client talks to origins. {@code requestTimeout} bounds one request, retries included: until its
     * response starts, and for a document until its whole body has arrived; {@code readTimeout} bounds each wait
     * for more of a body. {@code offline} refuses every request without sending it;
     * {@code internalAuthorities} says which internal destinations (host and port) each origin may use: every
     * other destination must be on the public internet.
     */
    public record Settings(Duration connectTimeout, Duration requestTimeout, Duration readTimeout, SSLContext sslContext,
                           String userAgent, int maxRedirects, int maxDocumentBytes, RetryPolicy retry,
                           boolean offline, InternalAuthorities internalAuthorities, OriginProxy proxy) {

        /** Settings that reach origins directly. */
        public Settings(Duration connectTimeout, Duration requestTimeout, Duration readTimeout, SSLContext sslContext,
                        String userAgent, int maxRedirects, int maxDocumentBytes, RetryPolicy retry,
                        boolean offline, InternalAuthorities internalAuthorities) {
            this(connectTimeout, requestTimeout, readTimeout, sslContext, userAgent, maxRedirects, maxDocumentBytes,
                    retry, offline, internalAuthorities, null);
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

    /** A whole response: its final URL after redirects, status, media type and body. */
    public record Document(URI finalUri, int status, String contentType, byte[] body) {
        /** True when the media type is {@code application/json}, parameters aside. */
        public boolean isJson() {
            return contentType != null
                    && contentType.toLowerCase(Locale.ROOT).split(";", 2)[0].trim().equals("application/json");
        }
    }

    /** An open archive response; the caller reads and closes {@code body}. */
    public record ArchiveStream(URI finalUri, OptionalLong contentLength, InputStream body) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            body.close();
        }
    }

    /** How the JDK reports a proxy that refused a tunnel for want of credentials (407, or 401 from some proxies). */
    private static final java.util.regex.Pattern PROXY_REFUSED_CREDENTIALS =
            java.util.regex.Pattern.compile("Tunnel failed, got: 40[17]");

    private final HttpClient client;
    private final Settings settings;
    private final Sleeper sleeper;
    private final OriginObserver observer;
    private final Resolver resolver;

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
        this.sleeper = sleeper;
        this.observer = observer;
        this.resolver = resolver;
        if ("0".equals(java.security.Security.getProperty("networkaddress.cache.ttl"))
                || "0".equals(System.getProperty("sun.net.inetaddr.ttl"))) {
            LOG.warn("networkaddress.cache.ttl is 0: the JVM does not keep resolved addresses, so the address an "
                    + "origin request connects to may differ from the one checked for being internal");
        }
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(settings.connectTimeout())
                .sslContext(settings.sslContext());
        if (settings.proxy() != null) {
            builder.proxy(settings.proxy());
            settings.proxy().authenticator().ifPresent(builder::authenticator);
        }
        this.client = builder.build();
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
    public Document getDocument(String origin, URI uri, String what, OriginObserver.Operation operation,
                                String bearerToken) {
        long start = System.nanoTime();
        try {
            HttpResponse<Flow.Publisher<List<ByteBuffer>>> response = send(origin, uri, what, settings.requestTimeout(),
                    HttpResponse.BodyHandlers.ofPublisher(), OriginHttpClient::discard, bearerToken);
            // The request's deadline covers the body too: the JDK's timeout ends with the headers, and an origin
            // trickling its body a byte at a time would otherwise hold this thread for as long as it likes.
            Document document;
            try (TimedBodyStream body = new TimedBodyStream(settings.readTimeout(),
                    start + settings.requestTimeout().toNanos())) {
                response.body().subscribe(body);
                byte[] bytes = body.readNBytes(settings.maxDocumentBytes() + 1);
                if (bytes.length > settings.maxDocumentBytes()) {
                    throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + " from " + response.uri()
                            + " is larger than " + settings.maxDocumentBytes() + " bytes");
                }
                document = new Document(response.uri(), response.statusCode(),
                        response.headers().firstValue("content-type").orElse(null), bytes);
            } catch (TimedBodyStream.DeadlineExceeded e) {
                throw new OriginException(OriginException.Reason.TIMEOUT, what + ": " + response.uri() + " (origin "
                        + origin + ") did not send its whole answer within " + settings.requestTimeout().toMillis()
                        + " ms (upstream.requestTimeout); the mirror hung up", e);
            } catch (java.net.SocketTimeoutException e) {
                throw new OriginException(OriginException.Reason.TIMEOUT, what + ": " + response.uri() + " (origin "
                        + origin + ") sent nothing for " + settings.readTimeout().toMillis()
                        + " ms (upstream.readTimeout); the mirror hung up", e);
            } catch (IOException e) {
                throw failure(uri, what, e);
            }
            observe(origin, uri, operation, start, document.status(), null);
            return document;
        } catch (OriginException e) {
            observe(origin, uri, operation, start, 0, e);
            throw e;
        }
    }

    /**
     * GETs an archive and returns its open body stream, whose every read waits at most
     * {@code readTimeout}; any status other than 200 is an error.
     */
    public ArchiveStream openArchive(String origin, URI uri, String what) {
        return openArchive(origin, uri, what, null);
    }

    /** As {@link #openArchive(String, URI, String)}, with a bearer token for {@code uri}'s authority only. */
    public ArchiveStream openArchive(String origin, URI uri, String what, String bearerToken) {
        long start = System.nanoTime();
        try {
            HttpResponse<Flow.Publisher<List<ByteBuffer>>> response = send(origin, uri, what, settings.requestTimeout(),
                    HttpResponse.BodyHandlers.ofPublisher(), OriginHttpClient::discard, bearerToken);
            if (response.statusCode() != 200) {
                discard(response.body());
                throw statusError(response.uri(), response.statusCode(), what);
            }
            observe(origin, uri, OriginObserver.Operation.ARCHIVE, start, response.statusCode(), null);
            TimedBodyStream body = new TimedBodyStream(settings.readTimeout());
            response.body().subscribe(body);
            OptionalLong length = response.headers().firstValueAsLong("content-length");
            return new ArchiveStream(response.uri(), length, body);
        } catch (OriginException e) {
            observe(origin, uri, OriginObserver.Operation.ARCHIVE, start, 0, e);
            throw e;
        }
    }

    /** Reports one logical request: by its status when it got one, else by the exception that ended it. */
    private void observe(String origin, URI uri, OriginObserver.Operation operation, long startNanos, int status,
                         OriginException failure) {
        if (failure != null && (failure.reason() == OriginException.Reason.FORBIDDEN || settings.offline()
                || failure instanceof DestinationRefused)) {
            return;
        }
        OriginObserver.Outcome outcome;
        if (failure != null) {
            outcome = failure.reason() == OriginException.Reason.TIMEOUT ? OriginObserver.Outcome.TIMEOUT
                    : failure.reason() == OriginException.Reason.NOT_FOUND ? OriginObserver.Outcome.NOT_FOUND
                    : OriginObserver.Outcome.ERROR;
        } else if (status / 100 == 2) {
            outcome = OriginObserver.Outcome.SUCCESS;
        } else {
            outcome = status == 404 || status == 410 ? OriginObserver.Outcome.NOT_FOUND : OriginObserver.Outcome.ERROR;
        }
        String detail = failure != null ? failure.getMessage()
                : outcome == OriginObserver.Outcome.SUCCESS ? null : uri + " answered HTTP " + status;
        observer.requestCompleted(origin, uri.getAuthority(), operation, outcome,
                Duration.ofNanos(System.nanoTime() - startNanos), detail);
    }

    private static void discard(Flow.Publisher<List<ByteBuffer>> body) {
        body.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.cancel();
            }

            @Override
            public void onNext(List<ByteBuffer> item) {
            }

            @Override
            public void onError(Throwable throwable) {
            }

            @Override
            public void onComplete() {
            }
        });
    }

    /** The error for an unexpected status, naming the URL; it carries the status. */
    public static OriginException statusError(URI uri, int status, String what) {
        OriginException.Reason reason = status == 404 || status == 410
                ? OriginException.Reason.NOT_FOUND
                : OriginException.Reason.UNAVAILABLE;
        String hint = status == 401 || status == 403
                ? " (it wants credentials, or refuses the mirror's: see upstream.hosts.<hostname>.token)" : "";
        return new OriginException(reason, what + ": " + uri + " answered HTTP " + status + hint, status);
    }

    /**
     * Sends a GET, retrying as {@link RetryPolicy} says, all within {@code timeout}: the deadline of this one
     * logical request, attempts and pauses included, so a caller gets an answer (or a clear error) in time.
     */
    private <T> HttpResponse<T> send(String origin, URI start, String what, Duration timeout,
                                     HttpResponse.BodyHandler<T> handler, java.util.function.Consumer<T> discard,
                                     String bearerToken) {
        if (settings.offline()) {
            throw new OriginException(OriginException.Reason.NOT_FOUND, what + " is not in this mirror's cache, and "
                    + "upstream.offline is set, so " + start.getAuthority() + " is not asked");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        RetryPolicy retry = settings.retry();
        OriginException last = null;
        for (int attempt = 1; ; attempt++) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw gaveUp(last, attempt - 1, timeout, what, start);
            }
            Optional<Duration> retryAfter = Optional.empty();
            try {
                HttpResponse<T> response = sendFollowingRedirects(origin, start, what, Duration.ofNanos(remaining), handler,
                        discard, bearerToken);
                if (!RetryPolicy.isRetryableStatus(response.statusCode()) || attempt >= retry.maxAttempts()) {
                    return response;
                }
                discard.accept(response.body());
                last = statusError(response.uri(), response.statusCode(), what);
                retryAfter = RetryPolicy.parseRetryAfter(response.headers().firstValue("retry-after").orElse(null),
                        java.time.Instant.now());
            } catch (AttemptFailed failed) {
                if (!failed.retryable || attempt >= retry.maxAttempts()) {
                    throw attempt > 1 ? withAttempts(failed.exception, attempt) : failed.exception;
                }
                last = failed.exception;
            }
            Duration pause = retry.delayBefore(attempt + 1, retryAfter, java.util.concurrent.ThreadLocalRandom.current()::nextDouble);
            if (System.nanoTime() + pause.toNanos() >= deadline) {
                throw withAttempts(last, attempt);
            }
            LOG.info("{}: {}; trying again in {} ms (attempt {} of {})", what, last.getMessage(), pause.toMillis(),
                    attempt + 1, retry.maxAttempts());
            try {
                sleeper.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": interrupted", e);
            }
        }
    }

    private static OriginException gaveUp(OriginException last, int attempts, Duration timeout, String what, URI uri) {
        if (last == null) {
            return new OriginException(OriginException.Reason.TIMEOUT,
                    what + ": " + uri.getAuthority() + " did not answer within " + timeout.toMillis() + " ms");
        }
        return withAttempts(last, attempts);
    }

    private static OriginException withAttempts(OriginException last, int attempts) {
        return new OriginException(last.reason(), last.getMessage() + " (gave up after " + attempts
                + (attempts == 1 ? " attempt)" : " attempts)"), last);
    }

    /** One attempt failed before a response; says whether another attempt may help. */
    private static final class AttemptFailed extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient OriginException exception;
        private final boolean retryable;

        AttemptFailed(OriginException exception, boolean retryable) {
            super(exception.getMessage(), null, false, false);
            this.exception = exception;
            this.retryable = retryable;
        }
    }

    private <T> HttpResponse<T> sendFollowingRedirects(String origin, URI start, String what, Duration timeout,
                                                       HttpResponse.BodyHandler<T> handler,
                                                       java.util.function.Consumer<T> discard, String bearerToken)
            throws AttemptFailed {
        URI uri = start;
        URI previous = null;
        for (int redirects = 0; ; redirects++) {
            checkDestination(origin, previous, uri, what);
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                    .timeout(timeout)
                    .header("User-Agent", settings.userAgent())
                    .GET();
            // A token belongs to the authority it was meant for; a redirect elsewhere does not get it.
            if (bearerToken != null && sameAuthority(uri, start)) {
                builder.header("Authorization", "Bearer " + bearerToken);
            }
            HttpRequest request = builder.build();
            HttpResponse<T> response;
            try {
                response = client.send(request, handler);
            } catch (IOException e) {
                // A timed-out attempt used up the deadline; a TLS failure will not heal by itself.
                boolean retryable = !(e instanceof HttpTimeoutException) || e instanceof HttpConnectTimeoutException;
                retryable &= !(e instanceof SSLException || e.getCause() instanceof SSLException);
                retryable &= !PROXY_REFUSED_CREDENTIALS.matcher(String.valueOf(e.getMessage())).find();
                throw new AttemptFailed(failure(uri, what, e), retryable);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": interrupted", e);
            }
            try {
                // The client resolved the name again to connect: it must still lead where the check allowed.
                checkDestination(origin, previous, uri, what);
            } catch (OriginException refused) {
                discard.accept(response.body());
                throw refused;
            }
            int status = response.statusCode();
            Optional<String> location = response.headers().firstValue("location");
            if (status / 100 != 3 || status == 304 || location.isEmpty()) {
                return response;
            }
            discard.accept(response.body());
            if (redirects >= settings.maxRedirects()) {
                throw new OriginException(OriginException.Reason.BAD_RESPONSE, what + ": " + start
                        + " redirected more than " + settings.maxRedirects() + " times");
            }
            try {
                previous = uri;
                uri = uri.resolve(location.get());
            } catch (IllegalArgumentException e) {
                throw new OriginException(OriginException.Reason.BAD_RESPONSE,
                        what + ": " + uri + " redirected to an invalid URL", e);
            }
        }
    }

    /** True when both URLs name the same scheme, host and port (default ports spelled out or not). */
    public static boolean sameAuthority(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI uri) {
        return uri.getPort() != -1 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    /**
     * Decides whether {@code uri} may be contacted on behalf of {@code origin}, for the first hop and every
     * redirect ({@code from} is the URL that redirected, else null): only http(s), never from https to http, and
     * an internal address (or a name this machine cannot resolve, which would be left to the egress proxy) only
     * when it is exactly an authority configured for {@code origin}. A refused destination is never connected
     * to, so the answer does not depend on what listens there.
     */
    private void checkDestination(String origin, URI from, URI uri, String what) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
            throw new DestinationRefused(OriginException.Reason.BAD_RESPONSE, what + ": the origin " + origin
                    + (from == null ? " named '" : " redirected to '") + uri + "', which is not an http(s) URL");
        }
        if (from != null && from.getScheme().equalsIgnoreCase("https") && scheme.equals("http")) {
            throw new DestinationRefused(OriginException.Reason.BAD_RESPONSE, what + ": the origin " + origin
                    + " redirected from https to plain http (" + uri.getAuthority() + "); the mirror does not follow that");
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (settings.internalAuthorities().allows(origin, host, port(uri))) {
            return;
        }
        InetAddress[] addresses;
        try {
            // Addresses the JVM resolved are cached (networkaddress.cache.ttl, 30 s by default), and the client's
            // own lookup to connect reads that cache: it connects to an address checked here.
            addresses = resolver.resolve(host);
        } catch (java.net.UnknownHostException e) {
            String proxied = settings.proxy() != null && !settings.proxy().bypasses(host)
                    ? "; behind the proxy " + settings.proxy().describe() + " only hosts configured for " + origin
                    + " under upstream.hosts are left to it to resolve" : "";
            throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": cannot resolve " + host + proxied, e);
        }
        for (InetAddress address : addresses) {
            if (InternalAddresses.isInternal(address)) {
                // The address stays in the log: clients are not told what internal names resolve to.
                LOG.warn("{}: {} resolves to the internal address {}, which is not configured for the origin {}",
                        what, host, address.getHostAddress(), origin);
                throw new DestinationRefused(OriginException.Reason.FORBIDDEN, what + ": " + host + " resolves to an "
                        + "internal address; an internal address is contacted only "
                        + "when its host and port (" + uri.getAuthority() + ") are configured for the origin " + origin
                        + " under upstream.hosts (its own name, discoveryUrl, mirrorUrl or downloadHosts)");
            }
        }
    }

    /** A destination refused before anything was sent to it. */
    private static final class DestinationRefused extends OriginException {
        private static final long serialVersionUID = 1L;

        DestinationRefused(Reason reason, String message) {
            super(reason, message);
        }
    }

    private OriginException failure(URI uri, String what, IOException e) {
        OriginProxy proxy = settings.proxy();
        if (proxy != null && !proxy.bypasses(uri.getHost())) {
            String message = String.valueOf(e.getMessage());
            if (PROXY_REFUSED_CREDENTIALS.matcher(message).find()) {
                return new OriginException(OriginException.Reason.UNAVAILABLE, what + ": the proxy " + proxy.describe()
                        + " refused the mirror's credentials (" + message + "); check upstream.proxy.username and "
                        + "password, or the credentials in HTTPS_PROXY", e);
            }
            if (e instanceof ConnectException || e instanceof HttpConnectTimeoutException) {
                return new OriginException(OriginException.Reason.UNAVAILABLE, what + ": cannot connect to the proxy "
                        + proxy.describe() + " (upstream.proxy): " + message, e);
            }
            if (message.contains("Tunnel failed") || message.contains("tunnel")) {
                return new OriginException(OriginException.Reason.UNAVAILABLE, what + ": the proxy " + proxy.describe()
                        + " would not open a tunnel to " + uri.getAuthority() + ": " + message, e);
            }
        }
        if (e instanceof HttpConnectTimeoutException) {
            return new OriginException(OriginException.Reason.TIMEOUT,
                    what + ": connecting to " + uri.getAuthority() + " timed out", e);
        }
        if (e instanceof HttpTimeoutException) {
            return new OriginException(OriginException.Reason.TIMEOUT, what + ": " + uri + " did not answer in time", e);
        }
        if (e instanceof ConnectException) {
            return new OriginException(OriginException.Reason.UNAVAILABLE,
                    what + ": cannot connect to " + uri.getAuthority(), e);
        }
        if (e instanceof SSLException || e.getCause() instanceof SSLException) {
            return new OriginException(OriginException.Reason.UNAVAILABLE,
                    what + ": TLS with " + uri.getAuthority() + " failed (" + e.getMessage()
                            + "); is its CA in upstream.trustedCertificates?", e);
        }
        return new OriginException(OriginException.Reason.UNAVAILABLE,
                what + ": request to " + uri + " failed: " + e, e);
    }
}
