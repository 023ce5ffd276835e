package io.providermirror.upstream;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One attempt at a GET: sent, and its redirects followed by hand, so that their number is bounded, the final
 * URL (against which relative URLs resolve) is known, and every hop goes through {@link OriginDestinations}
 * before it is sent, and again once it is answered when the transport resolved the name again to connect.
 */
final class RedirectFollower<H extends Hop> {

    private final HopTransport<H> transport;
    private final String userAgent;
    private final int maxRedirects;
    private final OriginDestinations destinations;
    private final OriginProxy proxy;

    RedirectFollower(HopTransport<H> transport, OriginHttpClient.Settings settings, OriginDestinations destinations) {
        this.transport = transport;
        this.userAgent = settings.userAgent();
        this.maxRedirects = settings.maxRedirects();
        this.destinations = destinations;
        this.proxy = settings.proxy();
    }

    /**
     * The answer at the end of {@code start}'s redirects (any status but a redirect), within {@code timeout}
     * per hop; the body of every answer not returned is discarded.
     *
     * @throws AttemptFailed when no response came, saying whether another attempt may help
     */
    H send(String origin, URI start, String what, Duration timeout, String bearerToken) throws AttemptFailed {
        URI uri = start;
        URI previous = null;
        for (int redirects = 0; ; redirects++) {
            InetAddress checked = destinations.check(origin, previous, uri, what);
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("User-Agent", userAgent);
            // A token belongs to the authority it was meant for; a redirect elsewhere does not get it.
            if (bearerToken != null && OriginHttpClient.sameAuthority(uri, start)) {
                headers.put("Authorization", "Bearer " + bearerToken);
            }
            H response;
            try {
                response = transport.send(uri, checked, headers, timeout);
            } catch (IOException e) {
                throw new AttemptFailed(AttemptFailures.describe(uri, what, e, proxy), AttemptFailures.retryable(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": interrupted", e);
            }
            if (!transport.connectsToCheckedAddress(uri)) {
                try {
                    // The client resolved the name again to connect: it must still lead where the check allowed.
                    destinations.check(origin, previous, uri, what);
                } catch (OriginException refused) {
                    response.discard();
                    throw refused;
                }
            }
            int status = response.status();
            Optional<String> location = response.header("location");
            if (status / 100 != 3 || status == 304 || location.isEmpty()) {
                return response;
            }
            response.discard();
            if (redirects >= maxRedirects) {
                throw new OriginException(
                        OriginException.Reason.BAD_RESPONSE,
                        what + ": " + start + " redirected more than " + maxRedirects + " times");
            }
            try {
                previous = uri;
                uri = uri.resolve(location.get());
            } catch (IllegalArgumentException e) {
                throw new OriginException(
                        OriginException.Reason.BAD_RESPONSE, what + ": " + uri + " redirected to an invalid URL", e);
            }
        }
    }

    /** One attempt failed before a response; says whether another attempt may help. */
    static final class AttemptFailed extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient OriginException exception;
        private final boolean retryable;

        AttemptFailed(OriginException exception, boolean retryable) {
            super(exception.getMessage(), null, false, false);
            this.exception = exception;
            this.retryable = retryable;
        }

        OriginException exception() {
            return exception;
        }

        boolean retryable() {
            return retryable;
        }
    }
}
