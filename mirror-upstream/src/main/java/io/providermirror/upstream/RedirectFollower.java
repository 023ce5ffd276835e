package io.providermirror.upstream;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One attempt at a GET: sent, and its redirects followed by hand, so that their number is bounded, the final
 * URL (against which relative URLs resolve) is known, and every hop goes through {@link OriginDestinations}
 * before it is sent and again once it is answered.
 */
final class RedirectFollower {

    private final HttpClient client;
    private final String userAgent;
    private final int maxRedirects;
    private final OriginDestinations destinations;
    private final OriginProxy proxy;

    RedirectFollower(HttpClient client, OriginHttpClient.Settings settings, OriginDestinations destinations) {
        this.client = client;
        this.userAgent = settings.userAgent();
        this.maxRedirects = settings.maxRedirects();
        this.destinations = destinations;
        this.proxy = settings.proxy();
    }

    /**
     * The response at the end of {@code start}'s redirects (any status but a redirect), within {@code timeout}
     * per hop; {@code discard} drops the body of a response that is not returned.
     *
     * @throws AttemptFailed when no response came, saying whether another attempt may help
     */
    <T> HttpResponse<T> send(
            String origin,
            URI start,
            String what,
            Duration timeout,
            HttpResponse.BodyHandler<T> handler,
            Consumer<T> discard,
            String bearerToken)
            throws AttemptFailed {
        URI uri = start;
        URI previous = null;
        for (int redirects = 0; ; redirects++) {
            destinations.check(origin, previous, uri, what);
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                    .timeout(timeout)
                    .header("User-Agent", userAgent)
                    .GET();
            // A token belongs to the authority it was meant for; a redirect elsewhere does not get it.
            if (bearerToken != null && OriginHttpClient.sameAuthority(uri, start)) {
                builder.header("Authorization", "Bearer " + bearerToken);
            }
            HttpRequest request = builder.build();
            HttpResponse<T> response;
            try {
                response = client.send(request, handler);
            } catch (IOException e) {
                throw new AttemptFailed(AttemptFailures.describe(uri, what, e, proxy), AttemptFailures.retryable(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OriginException(OriginException.Reason.UNAVAILABLE, what + ": interrupted", e);
            }
            try {
                // The client resolved the name again to connect: it must still lead where the check allowed.
                destinations.check(origin, previous, uri, what);
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
