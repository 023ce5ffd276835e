package io.providermirror.server.providers;

import java.time.Duration;

/**
 * Counts the {@code h1:} hashes still being computed and stored after archives were committed (off the
 * clients' path), so that closing the mirror can let them finish instead of interrupting a write and leaving
 * a version document without the platform's {@code h1:}.
 */
final class BackgroundHashes {

    private int pending;

    /** A hash will follow; called before the archive is committed, so a close cannot slip in between. */
    synchronized void begin() {
        pending++;
    }

    /** The hash was stored, or will not be. */
    synchronized void end() {
        pending--;
        if (pending == 0) {
            notifyAll();
        }
    }

    /** Waits until no hash is pending, at most {@code timeout}; true when none is. */
    synchronized boolean awaitNone(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
