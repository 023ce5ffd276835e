package io.providermirror.upstream;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.time.Instant;
import java.util.List;
import java.util.Set;

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

    static String signature(byte[] document, byte[] signature, List<String> armoredKeys) {
        return OpenPgpSignatures.verify(document, signature, armoredKeys, Instant.now());
    }

    static String signature(
            byte[] document, byte[] signature, List<String> armoredKeys, Set<String> pinned, String pinSetting) {
        return OpenPgpSignatures.verify(document, signature, armoredKeys, pinned, pinSetting, Instant.now());
    }
}
