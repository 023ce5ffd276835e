package io.providermirror.upstream.verify;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Signatures judged as of the moment a test runs, for tests about anything but dates (their keys are made now). */
final class VerifyNow {

    private VerifyNow() {}

    static String signature(byte[] document, byte[] signature, List<String> armoredKeys) {
        return OpenPgpSignatures.verify(document, signature, armoredKeys, Instant.now());
    }

    static String signature(
            byte[] document, byte[] signature, List<String> armoredKeys, Set<String> pinned, String pinSetting) {
        return OpenPgpSignatures.verify(document, signature, armoredKeys, pinned, pinSetting, Instant.now());
    }
}
