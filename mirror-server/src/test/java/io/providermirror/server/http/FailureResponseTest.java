package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.CharsetUtil;
import io.providermirror.server.core.CacheWriteException;
import io.providermirror.server.core.CapacityException;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.verify.VerificationException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Why an answer failed, as the status and JSON error a client gets. */
final class FailureResponseTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @CsvSource({
        "NOT_FOUND, 404",
        "FORBIDDEN, 403",
        "TIMEOUT, 504",
        "UNAVAILABLE, 502",
        "BAD_RESPONSE, 502",
        "VERIFICATION_FAILED, 502"
    })
    void anOriginsReasonBecomesItsStatusWithTheOriginsMessage(OriginException.Reason reason, int status)
            throws Exception {
        FullHttpResponse response = FailureResponse.of(
                new CompletionException(
                        new OriginException(reason, "the version list of example.test/acme/foo: it went wrong")),
                false,
                "/p");

        assertThat(response.status().code()).isEqualTo(status);
        assertThat(firstError(response)).isEqualTo("the version list of example.test/acme/foo: it went wrong");
    }

    @Test
    void aFailedVerificationIsAnOriginsFailureA502InItsOwnWords() throws Exception {
        FullHttpResponse response = FailureResponse.of(
                new CompletionException(new VerificationException(
                        VerificationException.Check.ARCHIVE_HASH,
                        "the archive of example.test/acme/foo 1.0.0 linux_amd64 does not match the signed SHA256SUMS")),
                false,
                "/p");

        assertThat(response.status().code()).isEqualTo(502);
        assertThat(firstError(response))
                .isEqualTo(
                        "the archive of example.test/acme/foo 1.0.0 linux_amd64 does not match the signed SHA256SUMS");
    }

    @Test
    void aPackageTheProvidersFaceCannotOfferIsA409InItsOwnWords() throws Exception {
        for (RuntimeException refusal : new RuntimeException[] {
            new io.providermirror.server.face.providers.NoOriginSignatureException("unsigned: use the network mirror"),
            new io.providermirror.server.face.providers.ExpiredOriginSignatureException(
                    "expired: use the network mirror")
        }) {
            FullHttpResponse response = FailureResponse.of(new CompletionException(refusal), false, "/p");
            assertThat(response.status().code()).isEqualTo(409);
            assertThat(firstError(response)).isEqualTo(refusal.getMessage());
        }
    }

    @Test
    void aPolicyRefusalIsA404ThatSaysItIsThePolicy() throws Exception {
        FullHttpResponse response =
                FailureResponse.of(new PolicyDeniedException("example.test/acme/banned is denied"), false, "/p");

        assertThat(response.status().code()).isEqualTo(404);
        assertThat(firstError(response))
                .isEqualTo("refused by this mirror's policy: example.test/acme/banned is denied");
    }

    @Test
    void aBusyMirrorIs503WithRetryAfterAndAFullDiskIs507WithoutIt() {
        FullHttpResponse busy = FailureResponse.of(
                new ExecutionException(new CapacityException(
                        CapacityException.Limit.FILLS, "too many archives are being fetched", Duration.ofSeconds(7))),
                false,
                "/p");
        FullHttpResponse full = FailureResponse.of(
                new CapacityException(CapacityException.Limit.DISK, "the disk is full", Duration.ofSeconds(7)),
                false,
                "/p");

        assertThat(busy.status().code()).isEqualTo(503);
        assertThat(busy.headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("7");
        assertThat(full.status().code()).isEqualTo(507);
        assertThat(full.headers().contains(HttpHeaderNames.RETRY_AFTER)).isFalse();
        busy.release();
        full.release();
    }

    @Test
    void aCacheThatCannotBeWrittenIs503() throws Exception {
        FullHttpResponse response = FailureResponse.of(
                new CacheWriteException("cannot write the cache", new java.io.IOException("read-only file system")),
                false,
                "/p");

        assertThat(response.status().code()).isEqualTo(503);
        assertThat(firstError(response)).isEqualTo("cannot write the cache");
    }

    @Test
    void anythingElseIsA500ThatKeepsItsDetailsInTheLog() throws Exception {
        FullHttpResponse response = FailureResponse.of(new IllegalStateException("a secret detail"), false, "/p");

        assertThat(response.status().code()).isEqualTo(500);
        assertThat(firstError(response)).isEqualTo("internal error in the mirror; its log has the details");
    }

    @Test
    void aHeadRequestGetsTheStatusAndLengthWithoutTheBody() {
        FullHttpResponse response = FailureResponse.of(new PolicyDeniedException("denied"), true, "/p");

        assertThat(response.status().code()).isEqualTo(404);
        assertThat(response.content().readableBytes()).isZero();
        assertThat(Integer.parseInt(response.headers().get(HttpHeaderNames.CONTENT_LENGTH)))
                .isPositive();
    }

    private static String firstError(FullHttpResponse response) throws Exception {
        try {
            return JSON.readTree(response.content().toString(CharsetUtil.UTF_8))
                    .get("errors")
                    .get(0)
                    .asText();
        } finally {
            response.release();
        }
    }
}
