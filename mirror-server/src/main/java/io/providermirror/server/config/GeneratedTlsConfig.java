package io.providermirror.server.config;

import io.providermirror.model.ProviderAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The CA and certificate the mirror makes for itself when {@code server.tls} is not given: the directory they are
 * kept in ({@code directory}; when absent {@code <cache.directory>-tls}, beside the cache directory and never inside
 * it, so a copy of the cache never carries the CA's key), and the names and addresses clients reach the mirror by
 * besides {@code localhost}, {@code 127.0.0.1}, {@code ::1} and the machine's host name ({@code names}). The CA can
 * sign for exactly those names and addresses.
 */
public record GeneratedTlsConfig(Path directory, List<String> names) {

    /** What the default directory's name adds to the cache directory's. */
    public static final String DEFAULT_SUFFIX = "-tls";

    public GeneratedTlsConfig {
        List<String> canonical = new ArrayList<>();
        for (String name : names == null ? List.<String>of() : names) {
            canonical.add(canonicalName(name));
        }
        names = List.copyOf(canonical);
        directory = directory == null ? null : directory.normalize();
    }

    /** The configuration with every default. */
    public static GeneratedTlsConfig defaults() {
        return new GeneratedTlsConfig(null, null);
    }

    /** The directory the generated CA and certificate are kept in, for a cache in {@code cacheDirectory}. */
    public Path directoryBeside(Path cacheDirectory) {
        if (directory != null) {
            return directory;
        }
        Path cache = cacheDirectory.toAbsolutePath().normalize();
        Path name = cache.getFileName();
        return cache.resolveSibling((name == null ? "mirror" : name.toString()) + DEFAULT_SUFFIX);
    }

    /**
     * A DNS name in lower case, or an IP address as the JDK prints it; anything else (a wildcard, a URL, a port, a
     * numeric spelling such as {@code 127.1}) is refused, since the CA's name constraints are made of these.
     */
    static String canonicalName(String name) {
        String lower = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        if (lower.contains(":")) {
            String address =
                    lower.startsWith("[") && lower.endsWith("]") ? lower.substring(1, lower.length() - 1) : lower;
            if (address.matches("[0-9a-f:.]{2,45}")) {
                try {
                    return InetAddress.getByName(address).getHostAddress(); // a literal: no DNS lookup
                } catch (UnknownHostException e) {
                    // Not an address: refused below.
                }
            }
        } else if (ProviderAddress.isValidHostname(lower)) {
            return lower;
        }
        throw new IllegalArgumentException("names: '" + name
                + "' (expected: a DNS name such as mirror.corp.example, or an IP address such as 10.1.2.3; "
                + "no wildcards, ports or URLs)");
    }
}
