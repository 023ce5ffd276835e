package io.providermirror.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** What an I/O failure towards an origin tells the user, and whether another attempt is made. */
final class AttemptFailuresTest {

    private static final URI URL = URI.create("https://registry.example:8443/v1/providers/acme/foo/versions");
    private static final String WHAT = "the version list of registry.example/acme/foo";
    private static final OriginProxy PROXY =
            OriginProxy.of(URI.create("http://proxy.internal:3128"), List.of(), null, null);

    @Test
    void aRefusedOrSlowConnectionIsWorthAnotherAttemptButAnAnswerThatTimedOutIsNot() {
        assertThat(AttemptFailures.retryable(new ConnectException("Connection refused")))
                .isTrue();
        assertThat(AttemptFailures.retryable(new HttpConnectTimeoutException("connect timed out")))
                .isTrue();
        assertThat(AttemptFailures.retryable(new HttpTimeoutException("request timed out")))
                .isFalse();
    }

    @Test
    void aTlsFailureOrAProxyThatRefusesTheCredentialsIsNotRetried() {
        assertThat(AttemptFailures.retryable(new SSLHandshakeException("PKIX path building failed")))
                .isFalse();
        assertThat(AttemptFailures.retryable(new IOException("wrapped", new SSLHandshakeException("bad"))))
                .isFalse();
        assertThat(AttemptFailures.retryable(new IOException("Tunnel failed, got: 407")))
                .isFalse();
    }

    @Test
    void aTlsFailureNamesTheAuthorityAndTheSettingThatTrustsItsCa() {
        OriginException error =
                AttemptFailures.describe(URL, WHAT, new SSLHandshakeException("PKIX path building"), null);

        assertThat(error.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE);
        assertThat(error.getMessage())
                .startsWith(WHAT + ": TLS with registry.example:8443 failed")
                .contains("upstream.trustedCertificates");
    }

    @Test
    void timeoutsAreTimeoutsAndSayWhetherConnectingOrAnsweringTookTooLong() {
        OriginException connecting = AttemptFailures.describe(URL, WHAT, new HttpConnectTimeoutException("x"), null);
        OriginException answering = AttemptFailures.describe(URL, WHAT, new HttpTimeoutException("x"), null);

        assertThat(connecting.reason()).isEqualTo(OriginException.Reason.TIMEOUT);
        assertThat(connecting.getMessage()).isEqualTo(WHAT + ": connecting to registry.example:8443 timed out");
        assertThat(answering.reason()).isEqualTo(OriginException.Reason.TIMEOUT);
        assertThat(answering.getMessage()).isEqualTo(WHAT + ": " + URL + " did not answer in time");
    }

    @Test
    void behindAProxyTheErrorBlamesTheProxyWhenItWasTheProxy() {
        OriginException credentials =
                AttemptFailures.describe(URL, WHAT, new IOException("Tunnel failed, got: 407"), PROXY);
        OriginException unreachable = AttemptFailures.describe(URL, WHAT, new ConnectException("refused"), PROXY);

        assertThat(credentials.getMessage())
                .contains("the proxy " + PROXY.describe())
                .contains("refused the mirror's credentials")
                .contains("upstream.proxy.username");
        assertThat(unreachable.getMessage()).contains("cannot connect to the proxy " + PROXY.describe());
    }

    @Test
    void withoutAProxyARefusedConnectionNamesTheOrigin() {
        OriginException error = AttemptFailures.describe(URL, WHAT, new ConnectException("refused"), null);

        assertThat(error.reason()).isEqualTo(OriginException.Reason.UNAVAILABLE);
        assertThat(error.getMessage()).isEqualTo(WHAT + ": cannot connect to registry.example:8443");
    }
}
