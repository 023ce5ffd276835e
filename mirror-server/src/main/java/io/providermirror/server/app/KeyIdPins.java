package io.providermirror.server.app;

import io.providermirror.server.core.OriginRules;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The start-up warning about signing keys pinned by their 64-bit key ID rather than their whole fingerprint. */
final class KeyIdPins {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorWiring.class);

    private KeyIdPins() {}

    static void warn(Set<String> hosts, OriginRules rules) {
        for (String host : hosts) {
            for (String pin : rules.signaturePolicy(host).keyIdPins()) {
                LOG.warn(
                        "upstream.hosts.{}.trustedKeys pins {} by its 16-hex-digit key ID: pin the key's whole "
                                + "fingerprint (40 hex digits, `gpg --fingerprint {}`) instead; a 64-bit key ID of another "
                                + "key can be made with enough computing power",
                        host,
                        pin,
                        pin);
            }
        }
    }
}
