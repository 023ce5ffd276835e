package io.providermirror.upstream;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The address of a provider, {@code hostname/namespace/type}, as the CLI writes it in mirror URLs:
 * lowercase, the hostname in punycode, with an optional {@code :port}.
 */
public record ProviderAddress(String hostname, String namespace, String type) {

    private static final Pattern LABEL = Pattern.compile("[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?");
    private static final int MAX_HOSTNAME_LENGTH = 253;

    public ProviderAddress {
        if (!isValidHostname(hostname)) {
            throw new IllegalArgumentException("hostname: '" + hostname
                    + "' (expected: a lowercase DNS name in punycode, optionally with :port)");
        }
        if (!isValidName(namespace)) {
            throw new IllegalArgumentException("namespace: '" + namespace
                    + "' (expected: lowercase letters, digits, '-' or '_', at most 64 characters)");
        }
        if (!isValidName(type)) {
            throw new IllegalArgumentException("type: '" + type
                    + "' (expected: lowercase letters, digits, '-' or '_', at most 64 characters)");
        }
    }

    /** Parses {@code hostname/namespace/type}, lowercasing it as the CLI does. */
    public static ProviderAddress parse(String address) {
        String[] parts = address.toLowerCase(Locale.ROOT).split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("provider address: '" + address
                    + "' (expected: hostname/namespace/type)");
        }
        return new ProviderAddress(parts[0], parts[1], parts[2]);
    }

    /** True when {@code hostname} is a lowercase DNS name, optionally followed by {@code :port}. */
    public static boolean isValidHostname(String hostname) {
        if (hostname == null || hostname.isEmpty() || hostname.length() > MAX_HOSTNAME_LENGTH) {
            return false;
        }
        String host = hostname;
        int colon = hostname.indexOf(':');
        if (colon >= 0) {
            host = hostname.substring(0, colon);
            if (!isValidPort(hostname.substring(colon + 1))) {
                return false;
            }
        }
        if (host.isEmpty()) {
            return false;
        }
        for (String label : host.split("\\.", -1)) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }

    private static boolean isValidPort(String port) {
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                || port.charAt(0) == '0') {
            return false;
        }
        int value = Integer.parseInt(port);
        return value >= 1 && value <= 65535;
    }

    /** True when {@code name} is a valid namespace or type. */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches() && !name.contains("--");
    }

    @Override
    public String toString() {
        return hostname + "/" + namespace + "/" + type;
    }
}
