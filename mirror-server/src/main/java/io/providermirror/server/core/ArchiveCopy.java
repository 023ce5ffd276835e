package io.providermirror.server.core;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ArchiveChunks;
import io.providermirror.upstream.Origin;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.TransferPace;
import io.providermirror.upstream.verify.PackageHashes;
import io.providermirror.upstream.verify.VerificationException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves an archive from its origin into its fill within the fill's bounds: its size, its deadline (renewing
 * its download URL included) and the least transfer rate. What it copies it hashes, for the check that follows:
 * each chunk is hashed and written from the buffer the origin client received it in, never copied into an array.
 */
public final class ArchiveCopy {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveCopy.class);

    private final FillBounds bounds;
    private final long maxArchiveBytes;
    private final MirrorMetrics metrics;

    ArchiveCopy(FillBounds bounds, long maxArchiveBytes, MirrorMetrics metrics) {
        this.bounds = bounds;
        this.maxArchiveBytes = maxArchiveBytes;
        this.metrics = metrics;
    }

    /** The deadline of a fill that starts now: {@code upstream.archiveTimeout} later, as {@link System#nanoTime()}. */
    public long deadlineFromNow() {
        return System.nanoTime() + bounds.deadline().toNanos();
    }

    /** Checks {@code deadline} before each request that renews the download URL of {@code what}. */
    public Origin.Deadline renewalDeadline(long deadline, String what, String host) {
        return () -> {
            if (System.nanoTime() - deadline >= 0) {
                metrics.fillAbandoned(host, "deadline");
                throw new OriginException(
                        OriginException.Reason.TIMEOUT,
                        "the archive of " + what + " from " + host
                                + " took longer than upstream.archiveTimeout ("
                                + bounds.deadline().toSeconds()
                                + " s) while its download URL was renewed; abandoned, the next request tries again");
            }
        };
    }

    /** Fails an archive that its origin announces larger than {@code upstream.maxArchiveBytes}. */
    public void checkAnnounced(OptionalLong announced, String what, String origin) {
        if (announced.isPresent() && announced.getAsLong() > maxArchiveBytes) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    "the archive of " + what + " from "
                            + origin + " is " + announced.getAsLong() + " bytes, more than upstream.maxArchiveBytes ("
                            + maxArchiveBytes + ")");
        }
    }

    /**
     * Copies the body into the fill while hashing it. An origin that sends less than
     * {@link FillBounds#minBytesPerSecond()} over a {@link FillBounds#rateWindow()}, or past the fill's
     * {@code deadline} ({@link FillBounds#deadline()} after it started), is abandoned: a trickle of bytes
     * would otherwise hold the thread, the socket and the temporary file for ever, as each read returns
     * before {@code upstream.readTimeout}.
     */
    public String copy(
            ArchiveChunks body,
            ArchiveFill fill,
            OptionalLong announced,
            String what,
            String origin,
            String originHost,
            long deadline)
            throws IOException {
        MessageDigest digest = PackageHashes.sha256();
        long total = 0;
        long limit = announced.isPresent() ? Math.min(announced.getAsLong(), maxArchiveBytes) : maxArchiveBytes;
        TransferPace pace =
                new TransferPace(bounds.minBytesPerSecond(), bounds.rateWindow(), System.nanoTime(), deadline);
        ByteBuffer chunk;
        while ((chunk = body.next()) != null) {
            int n = chunk.remaining();
            TransferPace.Verdict verdict = pace.arrived(n, System.nanoTime());
            if (verdict == TransferPace.Verdict.PAST_DEADLINE) {
                metrics.fillAbandoned(originHost, "deadline");
                throw new OriginException(
                        OriginException.Reason.TIMEOUT,
                        "the archive of " + what + " from " + origin
                                + " took longer than upstream.archiveTimeout ("
                                + bounds.deadline().toSeconds() + " s, "
                                + (total + n) + " bytes received); abandoned, the next request tries again");
            }
            if (verdict == TransferPace.Verdict.TOO_SLOW) {
                metrics.fillAbandoned(originHost, "too_slow");
                throw new OriginException(
                        OriginException.Reason.TIMEOUT,
                        "the archive of " + what + " from " + origin
                                + " arrived at "
                                + pace.lastRate() + " bytes/s, below upstream.minTransferRate ("
                                + bounds.minBytesPerSecond()
                                + " bytes/s); abandoned, the next request tries again");
            }
            total += n;
            if (total > limit) {
                throw new VerificationException(
                        VerificationException.Check.ARCHIVE_SIZE,
                        "the archive of " + what
                                + " from " + origin + " is larger than "
                                + (announced.isPresent()
                                        ? "the " + announced.getAsLong() + " bytes announced"
                                        : "upstream.maxArchiveBytes (" + maxArchiveBytes + ")"));
            }
            int start = chunk.position();
            digest.update(chunk);
            chunk.position(start);
            try {
                fill.append(chunk);
            } catch (IOException e) {
                throw OriginFills.cacheWriteFailed(what, e);
            }
        }
        if (announced.isPresent() && total != announced.getAsLong()) {
            // What the origin sent (its length, its digest) stays in the log: a client learns only that it failed.
            LOG.warn(
                    "the archive of {} from {} ended after {} of {} announced bytes",
                    what,
                    origin,
                    total,
                    announced.getAsLong());
            throw new VerificationException(
                    VerificationException.Check.ARCHIVE_SIZE,
                    "the archive of " + what + " from " + origin + " ended before the " + announced.getAsLong()
                            + " bytes announced");
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
