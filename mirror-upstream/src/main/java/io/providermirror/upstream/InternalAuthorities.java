package io.providermirror.upstream;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which destinations each origin may use although they are on an internal network (or only the egress proxy can
 * resolve them): exactly the authorities (host and port) the operator configured for that origin. An allowance
 * never carries over to another origin, nor to another port of the same host.
 */
@FunctionalInterface
public interface InternalAuthorities {

    /** No origin may use an internal destination. */
    InternalAuthorities NONE = (origin, host, port) -> false;

    /**
     * True when requests on behalf of {@code origin} (a normalised provider hostname) may go to {@code host}
     * (lowercase, an IPv6 literal without brackets) on {@code port}.
     */
    boolean allows(String origin, String host, int port);

    /**
     * The allowance of each origin hostname: its authorities written {@code host:port} ({@code host} alone
     * means port 443; IPv6 literals in brackets).
     */
    static InternalAuthorities of(Map<String, ? extends Collection<String>> authoritiesByOrigin) {
        Map<String, Set<String>> copy = new HashMap<>();
        authoritiesByOrigin.forEach((origin, authorities) -> copy.put(
                origin.toLowerCase(Locale.ROOT),
                authorities.stream().map(InternalAuthorities::normalise).collect(Collectors.toUnmodifiableSet())));
        Map<String, Set<String>> byOrigin = Map.copyOf(copy);
        return (origin, host, port) -> byOrigin.getOrDefault(origin, Set.of()).contains(authority(host, port));
    }

    /** {@code host:port} as this allowance compares them: lowercase, IPv6 literals in brackets. */
    static String authority(String host, int port) {
        String lower = host.toLowerCase(Locale.ROOT);
        return (lower.contains(":") && !lower.startsWith("[") ? "[" + lower + "]" : lower) + ":" + port;
    }

    private static String normalise(String authority) {
        String lower = authority.toLowerCase(Locale.ROOT);
        int close = lower.lastIndexOf(']');
        int colon = lower.lastIndexOf(':');
        if (colon > close) {
            return authority(lower.substring(0, colon), Integer.parseInt(lower.substring(colon + 1)));
        }
        return authority(lower, 443);
    }
}
