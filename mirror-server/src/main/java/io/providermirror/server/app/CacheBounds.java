package io.providermirror.server.app;

import io.providermirror.cache.FileBlobStore;
import io.providermirror.server.config.MirrorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The bounds of the archive store as the configuration sets them, and what {@code --verify-cache} found. */
final class CacheBounds {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorWiring.class);

    private CacheBounds() {}

    /** {@code cache.maxSize} in bytes, else no bound. */
    static long maxBytes(MirrorConfig config) {
        return config.cache().maxSize() == null
                ? Long.MAX_VALUE
                : config.cache().maxSize().bytes();
    }

    /**
     * The free space the archive store keeps: {@code cache.minFreeSpace}, else the smaller of 1 GiB and 5% of
     * the file system (enough for logs and the metadata written beside the archives, without reserving a
     * large part of a small volume).
     */
    static long minFreeBytes(MirrorConfig config, Path cacheDirectory) throws IOException {
        if (config.cache().minFreeSpace() != null) {
            return config.cache().minFreeSpace().bytes();
        }
        return Math.min(1L << 30, Files.getFileStore(cacheDirectory).getTotalSpace() / 20);
    }

    /** Logs what hashing every cached archive of {@code what} found and removed. */
    static void verified(String what, FileBlobStore.VerificationReport report) {
        LOG.info(
                "--verify-cache: hashed {} {}; removed {} that no longer matched{}",
                report.checked(),
                what,
                report.removed().size(),
                report.removed().isEmpty() ? "" : ": " + report.removed());
    }
}
