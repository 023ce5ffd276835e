/**
 * The judgement of what origins and bundles send, on bytes already fetched: signed SHA256SUMS and the OpenPGP rules
 * the CLI applies ({@link io.providermirror.upstream.verify.ReleaseJudgement}), package hashes ({@code h1:},
 * {@code zh:}) and module archive checks. Knows nothing else of talking to origins, so origins, fills and bundles use
 * the one judgement; a failed check is a {@link io.providermirror.upstream.verify.VerificationException}.
 */
package io.providermirror.upstream.verify;
