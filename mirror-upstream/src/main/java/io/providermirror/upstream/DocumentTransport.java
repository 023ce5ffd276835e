package io.providermirror.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Flow;

/**
 * Documents through the JDK's HTTP client: small bodies read whole, where a second client's speed would not show. It
 * resolves names itself (through the JVM's address cache, which the destination check filled), so the check is
 * repeated once the answer has arrived.
 */
final class DocumentTransport implements HopTransport<DocumentTransport.DocumentHop> {

    /** An answer of the JDK's client, its body a publisher not subscribed to yet. */
    record DocumentHop(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) implements Hop {

        @Override
        public URI uri() {
            return response.uri();
        }

        @Override
        public int status() {
            return response.statusCode();
        }

        @Override
        public Optional<String> header(String name) {
            return response.headers().firstValue(name);
        }

        @Override
        public void discard() {
            response.body().subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    subscription.cancel();
                }

                @Override
                public void onNext(List<ByteBuffer> item) {}

                @Override
                public void onError(Throwable throwable) {}

                @Override
                public void onComplete() {}
            });
        }
    }

    private final Memoized<HttpClient> client;

    /**
     * Documents through a client with {@code settings}' timeouts, trust and proxy, made by the first document request,
     * not here: with its TLS context it is most of what start-up would otherwise spend on origins before the first
     * answer, which may well come from the cache.
     */
    DocumentTransport(OriginHttpClient.Settings settings) {
        this.client = new Memoized<>(() -> {
            HttpClient.Builder builder = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(settings.connectTimeout())
                    .sslContext(settings.trust().sslContext());
            if (settings.proxy() != null) {
                builder.proxy(settings.proxy());
                settings.proxy().authenticator().ifPresent(builder::authenticator);
            }
            return builder.build();
        });
    }

    /**
     * Makes the client now (and with it the trust towards origins), instead of on the first document request.
     *
     * @throws IOException when the trust cannot be made; the first request fails the same way
     */
    void prepare() throws IOException {
        try {
            client.get();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** The client, or null while no one has made it. */
    HttpClient madeClient() {
        return client.isMade() ? client.get() : null;
    }

    @Override
    public DocumentHop send(URI uri, InetAddress checked, Map<String, String> headers, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(uri).timeout(timeout).GET();
        headers.forEach(request::header);
        // The trust towards origins could not be made: this request fails with the reason, as any TLS failure.
        prepare();
        return new DocumentHop(client.get().send(request.build(), HttpResponse.BodyHandlers.ofPublisher()));
    }

    @Override
    public boolean connectsToCheckedAddress(URI uri) {
        return false;
    }
}
