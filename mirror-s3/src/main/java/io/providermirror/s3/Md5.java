package io.providermirror.s3;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** Content-MD5 values: the bucket refuses an upload whose bytes do not match the digest sent with it. */
final class Md5 {

    private Md5() {}

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    static String base64(byte[] content) {
        return Base64.getEncoder().encodeToString(digest().digest(content));
    }
}
