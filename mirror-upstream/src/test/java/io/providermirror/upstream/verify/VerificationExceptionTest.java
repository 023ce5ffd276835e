package io.providermirror.upstream.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A verification failure is worded for the person who reads it, as an origin failure is. */
final class VerificationExceptionTest {

    @Test
    void itsMessageCarriesNoQueryStringsAndNoJdkInternals() {
        VerificationException refused = new VerificationException(
                VerificationException.Check.ARCHIVE_HASH,
                "the archive from https://h.test/x.zip?X-Amz-Signature=s cannot be hashed: java.io.EOFException");

        assertThat(refused.getMessage())
                .isEqualTo("the archive from https://h.test/x.zip?[redacted] cannot be hashed: "
                        + "the connection was closed before the answer ended");
        assertThat(refused.check()).isEqualTo(VerificationException.Check.ARCHIVE_HASH);
    }
}
