package io.providermirror.server.tlog;

import io.providermirror.server.tls.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The file holding the log's key: {@code log-key} in a directory of its own beside the cache directory
 * ({@code <cache.directory>-log}, 0700, the file 0600), never inside the cache, so a copy of the cache or of the bucket
 * never carries it. Made at the first start with a new origin {@code <host>/log/<8 random hex digits>}: each instance
 * (each key) keeps a log of its own.
 */
public final class LogKeyFile {

    /** What the key directory's name adds to the cache directory's. */
    public static final String DIRECTORY_SUFFIX = "-log";

    private static final String FILE = "log-key";

    private LogKeyFile() {}

    /** The key directory of the cache in {@code cacheDirectory}. */
    public static Path directoryBeside(Path cacheDirectory) {
        Path cache = cacheDirectory.toAbsolutePath().normalize();
        Path name = cache.getFileName();
        return cache.resolveSibling((name == null ? "mirror" : name.toString()) + DIRECTORY_SUFFIX);
    }

    /** The host a new log is named after: the first public URL's, else this machine's name if it has one. */
    static String host(java.util.List<java.net.URI> publicUrls) {
        if (!publicUrls.isEmpty() && publicUrls.get(0).getHost() != null) {
            return publicUrls.get(0).getHost().toLowerCase(java.util.Locale.ROOT);
        }
        try {
            String name = java.net.InetAddress.getLocalHost().getHostName().toLowerCase(java.util.Locale.ROOT);
            if (name.matches("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?")) {
                return name;
            }
        } catch (IOException e) {
            // no name: the generic one below
        }
        return "provider-mirror";
    }

    /** The key kept in {@code directory}, if there is one; nothing is made. */
    public static java.util.Optional<LogKey> load(Path directory) throws IOException {
        Path file = directory.resolve(FILE);
        if (!Files.exists(file)) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(LogKey.parse(Files.readString(file, StandardCharsets.US_ASCII)));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** The key kept in {@code directory}, made now (named after {@code host}) when there is none. */
    public static LogKey loadOrCreate(Path directory, String host) throws IOException {
        Path file = directory.resolve(FILE);
        if (Files.exists(file)) {
            PrivateFiles.restrict(file);
            try {
                return LogKey.parse(Files.readString(file, StandardCharsets.US_ASCII));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": " + e.getMessage(), e);
            }
        }
        PrivateFiles.directory(directory);
        SecureRandom random = new SecureRandom();
        byte[] instance = new byte[4];
        random.nextBytes(instance);
        LogKey key = LogKey.generate(host + "/log/" + HexFormat.of().formatHex(instance), random);
        PrivateFiles.write(file, key.signerKey() + "\n");
        return key;
    }
}
