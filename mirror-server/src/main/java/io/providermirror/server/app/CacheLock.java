package io.providermirror.server.app;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process at a time owns a cache directory: a running mirror holds this lock for its lifetime, and the
 * commands that work on a cache directory directly (warm, export, import) take it too, so they never meet a
 * live server's in-progress downloads. The operating system drops the lock when the process dies, even by
 * {@code kill -9}.
 */
public final class CacheLock implements AutoCloseable {

    static final String FILE = ".lock";

    private final FileChannel channel;
    private final FileLock lock;

    private CacheLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code cacheDirectory}.
     *
     * @throws IOException naming the directory when another process (or this one) holds it
     */
    /** Another process holds the directory; each command adds what its user can do about it. */
    public static final class InUseException extends IOException {
        private static final long serialVersionUID = 1L;

        InUseException(String message) {
            super(message);
        }
    }

    static CacheLock acquire(Path cacheDirectory) throws IOException {
        FileChannel channel =
                FileChannel.open(cacheDirectory.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new InUseException("another provider-mirror process is using the cache directory " + cacheDirectory);
        }
        return new CacheLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
