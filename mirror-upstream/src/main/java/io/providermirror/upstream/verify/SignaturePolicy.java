package io.providermirror.upstream.verify;

import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * How one origin host's releases must be vouched for. By default as the CLI: SHA256SUMS must carry a valid
 * signature by one of the keys the origin lists. {@code allowUnsigned} accepts releases whose origin lists no
 * key at all (SHA256SUMS is still checked); {@code trustedKeys} pins the keys that may sign (key IDs or
 * fingerprints, of a primary key or a subkey): keys outside the pin are refused even if the origin lists them.
 * A fingerprint is the better pin: a 16-hex-digit key ID is only 64 bits of it, which enough computing power can
 * match with another key ({@link #keyIdPins()} names them, so start-up can warn).
 * {@code parentMirror}, the host's configured {@code mirrorUrl}, makes a network mirror beneath that URL the
 * host's only source, whose published hashes are trusted instead of signatures; without it, evidence that claims
 * to come from a network mirror vouches for nothing.
 */
public record SignaturePolicy(boolean allowUnsigned, Set<String> trustedKeys, URI parentMirror) {

    /** The host whose registry serves some providers without keys, and whose CLI accepts that. */
    public static final String OPENTOFU_REGISTRY = "registry.opentofu.org";

    /** The CLI's rule: a valid signature by a listed key. */
    public static final SignaturePolicy CLI = new SignaturePolicy(false, Set.of());

    private static final Pattern KEY = Pattern.compile("[0-9A-F]{16}|[0-9A-F]{40}|[0-9A-F]{64}");

    public SignaturePolicy {
        Set<String> normalized = new TreeSet<>();
        for (String key : trustedKeys) {
            String hex = key.replace(" ", "").toUpperCase(Locale.ROOT).replaceFirst("^0X", "");
            if (!KEY.matcher(hex).matches()) {
                throw new IllegalArgumentException("trustedKeys: '" + key
                        + "' (expected: a key ID of 16 hex digits or a fingerprint of 40 or 64)");
            }
            normalized.add(hex);
        }
        trustedKeys = Set.copyOf(normalized);
        if (parentMirror != null && !trustedKeys.isEmpty()) {
            throw new IllegalArgumentException("trustedKeys: set with mirrorUrl (expected: one of them; a network "
                    + "mirror publishes hashes, not signatures, so there is no key to pin)");
        }
    }

    /** The pins that are 16-hex-digit key IDs rather than fingerprints; still honoured, but weaker. */
    public Set<String> keyIdPins() {
        Set<String> ids = new TreeSet<>();
        trustedKeys.stream().filter(pin -> pin.length() == 16).forEach(ids::add);
        return ids;
    }

    /** A host whose releases come from its origin registry, signed. */
    public SignaturePolicy(boolean allowUnsigned, Set<String> trustedKeys) {
        this(allowUnsigned, trustedKeys, null);
    }

    /** The default for {@code hostname}: the CLI's rule, with unsigned releases accepted from OpenTofu's registry. */
    public static SignaturePolicy defaultFor(String hostname) {
        return new SignaturePolicy(OPENTOFU_REGISTRY.equals(hostname), Set.of());
    }
}
