package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.providermirror.model.PlainMessages;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Origin failures as people read them: no JDK internals, no prefix said twice. */
final class OriginMessagesTest {

    private static final URI URL = URI.create("https://registry.example:8443/v1/providers/acme/foo/versions");
    private static final String WHAT = "the version list of registry.example/acme/foo";

    /** What the JDK's client says about an origin whose CA it does not trust, nested as it arrives. */
    private static final String JDK_PKIX = "javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
            + "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path "
            + "to requested target";

    @Test
    void anUntrustedOriginCertificateIsSaidInPlainWordsWithTheSettingThatFixesIt() {
        OriginException error = AttemptFailures.describe(
                URL, WHAT, new IOException(JDK_PKIX, new SSLHandshakeException(JDK_PKIX)), null);

        assertThat(error.getMessage())
                .isEqualTo(WHAT + ": TLS with registry.example:8443 failed (its certificate is not issued by a CA the"
                        + " mirror trusts); is its CA in upstream.trustedCertificates?")
                .doesNotContain("sun.security", "javax.", "PKIX");
    }

    @Test
    void anExceptionWithoutAMessageIsNamedByWhatItMeansNotByItsClass() {
        OriginException refused = AttemptFailures.describe(URL, WHAT, new IOException(new ConnectException()), null);

        assertThat(refused.getMessage())
                .isEqualTo(WHAT + ": request to " + URL + " failed: connection refused")
                .doesNotContain("java.");
        assertThat(PlainMessages.plain("reading failed: java.io.EOFException"))
                .isEqualTo("reading failed: the connection was closed before the answer ended");
        assertThat(PlainMessages.plain("x failed: java.net.http.HttpTimeoutException: request timed out"))
                .isEqualTo("x failed: request timed out");
    }

    @Test
    void aPrefixThatWrappingRepeatedIsSaidOnce() {
        String what = "the download of module localhost:8443/corp/net/aws 1.2.0";
        OriginException doubled = new OriginException(
                OriginException.Reason.UNAVAILABLE, what + ": " + what + ": the origin answered 500");

        assertThat(doubled.getMessage()).isEqualTo(what + ": the origin answered 500");
        // Words that merely recur are kept.
        assertThat(PlainMessages.plain("cannot get x: cannot get y: z")).isEqualTo("cannot get x: cannot get y: z");
    }

    /**
     * Text an origin or its keys put in a message (a long list of key IDs, a run of "a.") is cut at
     * {@code PlainMessages}' bound and never overflows the stack of the thread that words it: the regular
     * expressions it used recursed once per character or repetition, and 2.5 KB of signatures made a verification
     * throw a StackOverflowError instead of refusing. Worded here on a thread with a quarter of the usual stack.
     */
    @Test
    void aLongMessageIsCutAndWordedWithoutOverflowingTheStack() throws Exception {
        List<String> hostile = List.of(
                "x".repeat(200_000),
                "the signature over SHA256SUMS (made by key " + "0123456789ABCDEF, ".repeat(300) + ")",
                "a.".repeat(3_000) + "AException: b",
                "a:".repeat(3_000),
                "word ".repeat(1_000) + ": " + "word ".repeat(1_000) + ": z");
        List<String> worded = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread small = new Thread(
                null,
                () -> {
                    try {
                        hostile.forEach(message -> worded.add(PlainMessages.plain(message)));
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                },
                "small-stack",
                256 * 1024);
        small.start();
        small.join();

        assertThat(failure.get()).isNull();
        assertThat(worded)
                .hasSize(hostile.size())
                .allSatisfy(message -> assertThat(message).hasSizeLessThan(4_200));
        assertThat(worded.get(0)).endsWith("… (195904 characters more)");
    }

    @Test
    void originExceptionsCarryNoQueryStrings() {
        assertThat(new OriginException(
                                OriginException.Reason.UNAVAILABLE, "https://h.test/x?X-Amz-Signature=s answered")
                        .getMessage())
                .isEqualTo("https://h.test/x?[redacted] answered");
    }
}
