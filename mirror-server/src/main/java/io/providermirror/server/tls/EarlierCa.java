package io.providermirror.server.tls;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CA an earlier version of the mirror generated in {@code <cache.directory>/tls/}: unconstrained (it could sign
 * for any site) with its key in the cache directory, which copies and backups of the cache carry. Removed at
 * start-up, with a warning that says what clients must do.
 */
public final class EarlierCa {

    private static final Logger LOG = LoggerFactory.getLogger(EarlierCa.class);
    /** Where an earlier version kept it, beneath the cache directory. */
    static final String DIRECTORY = "tls";

    private static final List<String> FILES = List.of("ca-key.pem", "server-key.pem", "server.pem", "ca.pem");

    private EarlierCa() {}

    /**
     * Removes the earlier version's CA and server files from {@code cacheDirectory}, if any; {@code newCa} is the CA
     * clients must trust instead (empty with {@code server.tls} or {@code server.plainHttp}). True when it removed any.
     */
    public static boolean removeFrom(Path cacheDirectory, Optional<Path> newCa) throws IOException {
        Path directory = cacheDirectory.resolve(DIRECTORY);
        if (!Files.isDirectory(directory) || FILES.stream().noneMatch(f -> Files.exists(directory.resolve(f)))) {
            return false;
        }
        String fingerprint = "unknown";
        Path ca = directory.resolve("ca.pem");
        if (Files.isRegularFile(ca)) {
            try {
                fingerprint =
                        GeneratedCa.fingerprint(PemFiles.readCertificates(ca).get(0));
            } catch (IOException | RuntimeException e) {
                LOG.debug("cannot read the earlier CA {}: {}", ca, e.toString());
            }
        }
        for (String file : FILES) {
            Files.deleteIfExists(directory.resolve(file));
        }
        try {
            Files.deleteIfExists(directory);
        } catch (DirectoryNotEmptyException e) {
            LOG.debug("{} holds other files; left in place", directory);
        }
        LOG.warn(
                "removed the CA an earlier version of the mirror generated in {} (SHA-256 {}): it could sign "
                        + "certificates for any site, and its private key lay in the cache directory, which copies of "
                        + "the cache carry. {} Clients should remove the old CA from their trust stores",
                directory.toAbsolutePath(),
                fingerprint,
                newCa.map(path -> "The mirror's CA is now " + path.toAbsolutePath()
                                + ", which can sign only for the mirror's own names: clients must trust it instead "
                                + "(the status page offers it at /ca.pem).")
                        .orElse("This mirror does not use a generated CA (server.tls or server.plainHttp)."));
        return true;
    }
}
