package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.testkit.RawHttpsServer;
import io.providermirror.testkit.TestCertificates;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An origin that answers at once and then sends its document a byte at a time: each byte comes well within
 * {@code upstream.readTimeout}, so only the request's own deadline ({@code upstream.requestTimeout}) can end it.
 */
final class DocumentDeadlineTest {

    // Long enough for connecting and the TLS handshake on a busy machine (with 1 s, the deadline once passed while
    // connecting), far shorter than the trickle, which would last more than a day.
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path tmp;

    @Test
    void aDocumentTrickledByteByByteEndsWithATimeoutWithinTheRequestDeadlineAndTheConnectionIsClosed()
            throws Exception {
        TestCertificates certificates = TestCertificates.create(tmp.resolve("tls"), "trickle");
        CountDownLatch hungUp = new CountDownLatch(1);
        try (RawHttpsServer origin = RawHttpsServer.trickling(certificates, hungUp)) {
            OriginHttpClient client = OriginClients.http(certificates.caPem(), REQUEST_TIMEOUT);
            URI url = origin.url("/v1/providers/acme/slow/versions?token=secret");

            CompletableFuture<OriginHttpClient.Document> read = CompletableFuture.supplyAsync(
                    () -> client.getDocument(
                            "slow.example",
                            url,
                            "the version list of slow.example/acme/slow",
                            OriginObserver.Operation.VERSIONS),
                    OriginClients.EXECUTOR);

            // The trickle would last more than a day (a million bytes, ten a second), so ending at all proves the
            // deadline; the bound is generous so that a busy machine's slowness does not count against it.
            assertThat(read)
                    .as("ended by upstream.requestTimeout, long before the trickle would end")
                    .failsWithin(Duration.ofSeconds(60))
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause()
                    .isInstanceOfSatisfying(OriginException.class, e -> {
                        assertThat(e.reason()).isEqualTo(OriginException.Reason.TIMEOUT);
                        assertThat(e.getMessage())
                                .contains("the version list of slow.example/acme/slow")
                                .contains(url.getAuthority())
                                .contains("slow.example")
                                .contains("upstream.requestTimeout")
                                .doesNotContain("secret");
                    });
            assertThat(hungUp.await(60, TimeUnit.SECONDS))
                    .as("the origin saw the connection closed")
                    .isTrue();
        }
    }
}
