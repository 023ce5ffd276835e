package io.providermirror.upstream.verify;

import io.providermirror.model.PlainMessages;

/**
 * A package or its checksums failed one of the checks the CLI makes; nothing that failed is ever cached. It is no
 * {@code OriginException} (the judgement knows nothing of origins), but everything that maps origin failures to
 * answers maps it as an origin's {@code VERIFICATION_FAILED}, and its message is worded as theirs are
 * ({@link PlainMessages#of}: URLs without their query strings, no JDK internals).
 */
public final class VerificationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Which check failed, in the CLI's order. */
    public enum Check {
        /** SHA256SUMS has no line for the package's file name, or its hash differs from the announced one. */
        CHECKSUM_LISTING,
        /** No signing key of the origin verifies the signature over SHA256SUMS. */
        SIGNATURE,
        /**
         * The signature over SHA256SUMS, or a self-signature of the key that made it, has expired (or was made after
         * the time it is judged at) while that key has not: the CLI refuses it.
         */
        SIGNATURE_EXPIRED,
        /** The downloaded archive's sha256 differs from the signed one. */
        ARCHIVE_HASH,
        /** The downloaded archive's size differs from what the origin announced. */
        ARCHIVE_SIZE,
        /** A module version's content differs from what the mirror pinned when it first fetched it. */
        MODULE_PIN,
        /** A module archive breaks the limits on entries, sizes or names. */
        MODULE_ARCHIVE,
        /**
         * A module's version list names versions that differ only in build metadata ({@code 1.0.0} and
         * {@code 1.0.0+x}): the CLI takes them for one version, so the mirror lists one and serves its pin.
         */
        MODULE_VERSION_TWIN
    }

    private final Check check;

    public VerificationException(Check check, String message) {
        super(PlainMessages.of(message));
        this.check = check;
    }

    public Check check() {
        return check;
    }
}
