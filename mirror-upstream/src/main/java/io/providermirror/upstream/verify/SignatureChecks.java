package io.providermirror.upstream.verify;

/**
 * How many signatures of an origin's signing keys (key revocations, self-signatures on user IDs, subkey bindings and
 * revocations, back-signatures) one verification of a SHA256SUMS signature checks at most, over every key ring it
 * reads. Each check is a public-key operation as long as the key (Bouncy Castle reads RSA keys of up to 15360 bits,
 * 1.6 ms each), and an origin could list as many signatures as its download document holds; the CLI checks any
 * number, while an honest key carries a few dozen. Not thread-safe: one verification, one thread.
 */
final class SignatureChecks {

    /** The most checks one verification makes: several times what an honest origin's keys need. */
    static final int LIMIT = 256;

    private int left = LIMIT;

    /**
     * Counts one check about to be made.
     *
     * @throws VerificationException when the verification has made {@link #LIMIT} checks already
     */
    void spend() {
        if (left == 0) {
            throw new VerificationException(
                    VerificationException.Check.SIGNATURE,
                    "the origin's signing keys carry more than " + LIMIT + " signatures to check (self-signatures,"
                            + " bindings, revocations) before the signature over SHA256SUMS is judged; the mirror"
                            + " checks at most " + LIMIT + ", where an honest key needs a few dozen");
        }
        left--;
    }
}
