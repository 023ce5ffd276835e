package io.providermirror.server.core;

import java.util.regex.Pattern;

/**
 * An address pattern as policy rules write it, {@code hostname/namespace/type} for providers or
 * {@code hostname/namespace/name/system} for modules, each part a glob matched ignoring case
 * ({@link ProviderPolicy#glob}); it matches only addresses with as many parts.
 */
public record AddressPattern(String text, Pattern[] parts) {

    public static AddressPattern of(String text) {
        String[] globs = text.split("/");
        Pattern[] parts = new Pattern[globs.length];
        for (int i = 0; i < globs.length; i++) {
            parts[i] = ProviderPolicy.glob(globs[i]);
        }
        return new AddressPattern(text, parts);
    }

    /** Whether the address whose parts are {@code address} (split at {@code /}) matches. */
    public boolean matches(String address) {
        String[] values = address.split("/");
        if (values.length != parts.length) {
            return false;
        }
        for (int i = 0; i < parts.length; i++) {
            if (!parts[i].matcher(values[i]).matches()) {
                return false;
            }
        }
        return true;
    }
}
