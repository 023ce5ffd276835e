package io.providermirror.upstream.git;

import io.providermirror.upstream.TransferPace;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;

/**
 * A git response body that must keep its fetch's {@link Pace}: a server that trickles its objects below
 * {@code upstream.minTransferRate}, or is still sending when {@code upstream.archiveTimeout} runs out, ends the fetch
 * with an {@link IOException} saying so, instead of holding a fill place for as long as it likes.
 */
final class PacedInputStream extends FilterInputStream {

    /**
     * The pace of one fetch, over all its requests. The rate counts only the time spent waiting in reads, so the
     * fetch's own work between requests (and the many small requests of git's dumb protocol) never makes a healthy
     * server look slow; the deadline is the wall clock's.
     */
    static final class Pace {
        private final TransferPace rate;
        private final long deadlineNanos;
        private long readingNanos;
        private volatile String abandoned;

        Pace(long minBytesPerSecond, Duration window, long deadlineNanos) {
            this.rate = new TransferPace(minBytesPerSecond, window, 0, Long.MAX_VALUE);
            this.deadlineNanos = deadlineNanos;
        }

        synchronized TransferPace.Verdict arrived(long bytes, long waitedNanos, long nowNanos) {
            if (nowNanos - deadlineNanos > 0) {
                return TransferPace.Verdict.PAST_DEADLINE;
            }
            readingNanos += waitedNanos;
            return rate.arrived(bytes, readingNanos);
        }

        synchronized long lastRate() {
            return rate.lastRate();
        }

        long minBytesPerSecond() {
            return rate.minBytesPerSecond();
        }

        /** Rethrows why the fetch was abandoned, if it was: JGit reports a failed read in words of its own. */
        void throwIfAbandoned() throws GitFetchException {
            if (abandoned != null) {
                throw new GitFetchException(abandoned);
            }
        }

        private IOException abandon(String why) {
            if (abandoned == null) {
                abandoned = why;
            }
            return new IOException(why);
        }
    }

    private final Pace pace;
    private final URL url;

    PacedInputStream(InputStream in, Pace pace, URL url) {
        super(in);
        this.pace = pace;
        this.url = url;
    }

    @Override
    public int read() throws IOException {
        long started = System.nanoTime();
        int b = super.read();
        judge(b < 0 ? 0 : 1, started);
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        long started = System.nanoTime();
        int n = super.read(buffer, offset, length);
        judge(Math.max(n, 0), started);
        return n;
    }

    private void judge(int bytes, long started) throws IOException {
        long now = System.nanoTime();
        TransferPace.Verdict verdict = pace.arrived(bytes, now - started, now);
        if (verdict == TransferPace.Verdict.TOO_SLOW) {
            throw pace.abandon("the git server at " + url.getHost() + " sent " + pace.lastRate()
                    + " bytes/s, below upstream.minTransferRate (" + pace.minBytesPerSecond()
                    + " bytes/s); the fetch was abandoned");
        }
        if (verdict == TransferPace.Verdict.PAST_DEADLINE) {
            throw pace.abandon("the git server at " + url.getHost()
                    + " was still sending when upstream.archiveTimeout ran out; the fetch was abandoned");
        }
    }
}
