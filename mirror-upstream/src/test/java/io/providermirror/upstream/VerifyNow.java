package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.upstream.verify.SignaturePolicy;
import io.providermirror.upstream.verify.VerifiedRelease;
import java.time.Instant;

/** Verification as of the moment a test runs, for tests about anything but dates (their keys are made now). */
final class VerifyNow {

    private VerifyNow() {}

    static VerifiedRelease release(ProviderAddress address, ProviderVersion version, ReleaseEvidence evidence) {
        return release(address, version, evidence, SignaturePolicy.defaultFor(address.hostname()));
    }

    static VerifiedRelease release(
            ProviderAddress address, ProviderVersion version, ReleaseEvidence evidence, SignaturePolicy policy) {
        return ReleaseVerifier.verify(address, version, evidence, policy, Instant.now());
    }
}
