package io.providermirror.model;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The address of a provider, {@code hostname/namespace/type}, as the CLI writes it in mirror URLs:
 * lowercase, the hostname in punycode, with an optional {@code :port}. The hostname is normalised once, here:
 * the default port is folded away ({@code registry.terraform.io:443} is {@code registry.terraform.io}), so every
 * per-host rule, cache path and origin request sees one spelling of each host.
 */
public record ProviderAddress(String hostname, String namespace, String type) {

    private static final Pattern LABEL = Pattern.compile("[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?");
    private static final int MAX_HOSTNAME_LENGTH = 253;
    /** A label that makes a host name an IPv4 address to inet_aton and URL parsers: decimal, octal or hex. */
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0x[0-9a-f]*");

    private static final Pattern DOTTED_QUAD = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

    public ProviderAddress {
        if (!isValidHostname(hostname)) {
            throw new IllegalArgumentException(
                    "hostname: '" + hostname + "' (expected: a lowercase DNS name in punycode, optionally with :port)");
        }
        hostname = normalizeHostname(hostname);
        if (!isValidName(namespace)) {
            throw new IllegalArgumentException("namespace: '" + namespace
                    + "' (expected: lowercase letters, digits, '-' or '_', at most 64 characters)");
        }
        if (!isValidName(type)) {
            throw new IllegalArgumentException(
                    "type: '" + type + "' (expected: lowercase letters, digits, '-' or '_', at most 64 characters)");
        }
    }

    /** Parses {@code hostname/namespace/type}, lowercasing it as the CLI does. */
    public static ProviderAddress parse(String address) {
        String[] parts = address.toLowerCase(Locale.ROOT).split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException(
                    "provider address: '" + address + "' (expected: hostname/namespace/type)");
        }
        return new ProviderAddress(parts[0], parts[1], parts[2]);
    }

    /**
     * The one spelling of a valid {@code hostname} under which every per-host rule is kept: lowercase, without
     * the default port 443 (the CLI reaches {@code host} and {@code host:443} alike).
     */
    public static String normalizeHostname(String hostname) {
        String lower = hostname.toLowerCase(Locale.ROOT);
        return lower.endsWith(":443") ? lower.substring(0, lower.length() - ":443".length()) : lower;
    }

    /** The hostname without its port, if it has one. */
    public static String hostWithoutPort(String hostname) {
        int colon = hostname.indexOf(':');
        return colon < 0 ? hostname : hostname.substring(0, colon);
    }

    /**
     * True when {@code hostname} is a lowercase DNS name, optionally followed by {@code :port}. A name that
     * parsers read as an IPv4 address ({@code 127.1}, {@code 0x7f.1}, {@code 0177.0.0.1}, {@code 2130706433}:
     * its last label is a number) is valid only as a canonical dotted quad, so no spelling of an address
     * can pass for a name.
     */
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
        String[] labels = host.split("\\.", -1);
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return !NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches()
                || DOTTED_QUAD.matcher(host).matches();
    }

    private static boolean isValidPort(String port) {
        if (port.isEmpty()
                || port.length() > 5
                || !port.chars().allMatch(c -> c >= '0' && c <= '9')
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
