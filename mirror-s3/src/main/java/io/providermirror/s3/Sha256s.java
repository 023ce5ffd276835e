package io.providermirror.s3;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The sha256 digest archives are checked with, as mirror-cache commits them. */
final class Sha256s {

    private Sha256s() {}

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
