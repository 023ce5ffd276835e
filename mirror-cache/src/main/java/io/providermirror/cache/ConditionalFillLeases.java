package io.providermirror.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fill leases kept as objects of a shared store ({@code leases/<key>}), each holding its holder and expiry.
 * A lease is created only if absent ({@code If-None-Match: *}), so of two instances that ask at once one wins;
 * an expired lease is taken over by replacing it only if its ETag is the one read ({@code If-Match}), so of two
 * instances that take it over at once one wins. Expiry is judged by each instance's clock: the fleet's clocks
 * must agree (NTP) to well within the lease duration.
 */
public final class ConditionalFillLeases implements FillLeases {

    private static final Logger LOG = LoggerFactory.getLogger(ConditionalFillLeases.class);
    /** Where lease objects live, apart from blobs and documents. */
    static final String PREFIX = "leases/";
    /** How long a granted lease is left before it is read back to confirm it (see {@link #confirmed}). */
    static final Duration SETTLE = Duration.ofMillis(100);

    private final LeaseObjects objects;
    private final String holder;
    private final Duration duration;
    private final Clock clock;
    private final boolean exclusive;
    private final Duration settle;

    ConditionalFillLeases(
            LeaseObjects objects, String holder, Duration duration, Clock clock, boolean exclusive, Duration settle) {
        this.settle = settle;
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("lease duration: " + duration + " (expected: > 0)");
        }
        this.objects = objects;
        this.holder = holder;
        this.duration = duration;
        this.clock = clock;
        this.exclusive = exclusive;
    }

    /**
     * Leases over {@code objects} for the instance {@code holder}, after probing whether the store honours
     * conditional writes; when it does not, a warning says that the fleet may fetch an archive more than once.
     */
    public static ConditionalFillLeases open(LeaseObjects objects, String holder, Duration duration, Clock clock)
            throws IOException {
        boolean exclusive = probe(objects, holder);
        if (!exclusive) {
            LOG.warn("the object store ignores conditional writes (a second PUT with If-None-Match: *, or a PUT with"
                    + " If-Match on another ETag, was not refused with 412): fill leases are advisory, and instances that miss the same archive at the same"
                    + " moment may each fetch it from its origin. Use a store that supports conditional writes"
                    + " (AWS S3, MinIO, S3Proxy 3) for one origin fetch per archive across the fleet, or route each"
                    + " archive's requests to one instance (the README's \"A store that ignores conditional writes\")");
        }
        return new ConditionalFillLeases(objects, holder, duration, clock, exclusive, SETTLE);
    }

    /**
     * Writes the same probe object twice with {@code If-None-Match: *}, then replaces it with {@code If-Match} on
     * an ETag it does not have; true when the store refused both.
     */
    static boolean probe(LeaseObjects objects, String holder) throws IOException {
        String name = PREFIX + "probe/" + holder.replaceAll("[^A-Za-z0-9._-]", "_");
        byte[] first = probeContent(holder, 1);
        objects.delete(name);
        try {
            if (objects.createIfAbsent(name, first).isEmpty()) {
                throw new IOException("cannot probe the object store's conditional writes: " + name
                        + " exists although it was just removed");
            }
            // Judged by what the object holds afterwards, not by the answers, which a retried request can blur.
            var ignored = objects.createIfAbsent(name, probeContent(holder, 2));
            boolean createRefused = stillHolds(objects, name, first);
            // A takeover relies on If-Match as a create relies on If-None-Match: a replace with an ETag that
            // the object does not have must be refused too.
            ignored = objects.replaceIfMatch(name, probeContent(holder, 3), "\"not-the-etag\"");
            boolean replaceRefused = stillHolds(objects, name, first);
            return createRefused && replaceRefused;
        } finally {
            objects.delete(name);
        }
    }

    private static byte[] probeContent(String holder, int write) {
        return ("probe " + write + " by " + holder + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static boolean stillHolds(LeaseObjects objects, String name, byte[] content) throws IOException {
        return objects.read(name)
                .map(read -> java.util.Arrays.equals(read.content(), content))
                .orElse(false);
    }

    @Override
    public Optional<FillLease> tryAcquire(CacheKey key) throws IOException {
        String name = PREFIX + key;
        // Read first: it costs one request more per cold archive, but keeps leases meaningful (advisory) on a
        // store that ignores the condition of the create below.
        Optional<LeaseObjects.Versioned> current = objects.read(name);
        if (current.isEmpty()) {
            byte[] mine = fresh().encode();
            // A refusal is read back too: a create that a transport error made the client retry was refused by
            // its own first attempt.
            return confirmed(name, mine, objects.createIfAbsent(name, mine).isPresent())
                    .map(etag -> new Held(key, name, etag, false));
        }
        Optional<LeaseRecord> record = LeaseRecord.parse(current.get().content());
        if (record.isPresent() && record.get().expires().isAfter(clock.instant())) {
            return Optional.empty();
        }
        byte[] mine = fresh().encode();
        Optional<String> etag = confirmed(
                name,
                mine,
                objects.replaceIfMatch(name, mine, current.get().etag()).isPresent());
        etag.ifPresent(e -> LOG.info(
                "took over the fill lease of {} from {}, which let it expire",
                key,
                record.map(LeaseRecord::holder).orElse("an unreadable lease")));
        return etag.map(e -> new Held(key, name, e, true));
    }

    /**
     * After a conditional write succeeded, reads the lease back once the store had {@link #SETTLE} to take the
     * writes of racing instances: some stores check a condition and write in two steps (S3Proxy 3.0.0 on its
     * filesystem-nio2 backend granted two of eight simultaneous creates, measured), so the last write wins and
     * only the instance whose write it is holds the lease.
     *
     * @return the lease's ETag when it is still {@code mine}
     */
    private Optional<String> confirmed(String name, byte[] mine, boolean written) throws IOException {
        if (written && !settle.isZero()) {
            try {
                Thread.sleep(settle.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while confirming the lease " + name, e);
            }
        }
        return objects.read(name)
                .filter(read -> java.util.Arrays.equals(read.content(), mine))
                .map(LeaseObjects.Versioned::etag);
    }

    @Override
    public Duration duration() {
        return duration;
    }

    @Override
    public boolean exclusive() {
        return exclusive;
    }

    private LeaseRecord fresh() {
        return new LeaseRecord(holder, clock.instant().plus(duration));
    }

    /** A lease this instance holds, with the ETag of its last write. */
    private final class Held implements FillLease {
        private final CacheKey key;
        private final String name;
        private final boolean takenOver;
        private volatile String etag;

        Held(CacheKey key, String name, String etag, boolean takenOver) {
            this.key = key;
            this.name = name;
            this.etag = etag;
            this.takenOver = takenOver;
        }

        @Override
        public CacheKey key() {
            return key;
        }

        @Override
        public boolean takenOver() {
            return takenOver;
        }

        @Override
        public synchronized boolean renew() throws IOException {
            Optional<String> renewed = objects.replaceIfMatch(name, fresh().encode(), etag);
            renewed.ifPresent(e -> etag = e);
            return renewed.isPresent();
        }

        @Override
        public synchronized void release() {
            try {
                Optional<LeaseObjects.Versioned> current = objects.read(name);
                // Removed only while it is still this holder's write: a lease taken over stays its new holder's.
                if (current.isPresent()
                        && (current.get().etag().equals(etag)
                                || isMine(current.get().content()))) {
                    objects.delete(name);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot release the fill lease of {} (it expires by itself): {}", key, e.toString());
            }
        }

        private boolean isMine(byte[] content) {
            return LeaseRecord.parse(content)
                    .map(r -> r.holder().equals(holder))
                    .orElse(false);
        }
    }
}
