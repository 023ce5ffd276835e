package io.providermirror.server.tlog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DecisionLog} in front of a {@link TransparencyLog}: decisions are queued as they are made and appended
 * by one thread of its own in batches (everything queued since the last batch, under one checkpoint), so a request
 * never waits for the log's writes. A batch that cannot be written is kept and tried again. A policy refusal is
 * recorded once an hour per subject and reason, so that a client asking again and again does not grow the log.
 */
public final class AsyncDecisionLog implements DecisionLog, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AsyncDecisionLog.class);
    private static final int MAX_BATCH = 4096;
    /** Entries kept while the store does not take them; beyond this, new decisions are dropped (and said so). */
    private static final int MAX_WAITING = 100_000;

    private static final Duration RETRY = Duration.ofSeconds(5);

    private final TransparencyLog log;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final ScheduledExecutorService writer;
    private final ConcurrentLinkedQueue<byte[]> queued = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Cache<Decision, Boolean> recentRefusals = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofHours(1))
            .maximumSize(10_000)
            .build();
    /** Entries of batches that failed, oldest first; touched by the writer thread only. */
    private final List<byte[]> waiting = new ArrayList<>();

    public AsyncDecisionLog(TransparencyLog log, Clock clock) {
        this.log = log;
        this.clock = clock;
        this.writer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "decision-log");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The log this appends to. */
    public TransparencyLog log() {
        return log;
    }

    @Override
    public void record(Decision decision) {
        if (decision.kind().equals("policy.refused")
                && recentRefusals.asMap().putIfAbsent(decision, Boolean.TRUE) != null) {
            return;
        }
        byte[] entry;
        try {
            entry = entry(decision);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            LOG.error("cannot record the decision {} in the transparency log: {}", decision.kind(), e.getMessage());
            return;
        }
        queued.add(entry);
        if (scheduled.compareAndSet(false, true)) {
            try {
                writer.execute(this::drain);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.warn("the transparency log is closed; the decision {} is not recorded", decision.kind());
            }
        }
    }

    /**
     * Formats an entry of each kind a cold provider's first fill records ({@code release.verified},
     * {@code archive.committed}) as {@link #record} formats them, and records neither. The warm-up after start-up calls
     * it, so that the JSON mapper has built its writers before the first cold provider's request needs them.
     *
     * @return the entries as they would have been appended
     */
    public List<byte[]> warmUp() {
        String sha256 = "0".repeat(64);
        try {
            return List.of(
                    entry(Decision.releaseVerified(
                            "warm-up.invalid/provider-mirror/warm-up",
                            "1.0.0",
                            List.of("0".repeat(40)),
                            List.of(sha256),
                            // Three platforms, as most releases have several: the list class a fill's entry has.
                            List.of("darwin_arm64", "linux_amd64", "windows_amd64"))),
                    entry(Decision.archiveCommitted(
                            "warm-up.invalid/provider-mirror/warm-up",
                            "1.0.0",
                            "linux_amd64",
                            sha256,
                            "h1:" + "A".repeat(43) + "=")));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a sample entry cannot be formatted", e);
        }
    }

    private byte[] entry(Decision decision) throws JsonProcessingException {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("time", clock.instant().toString());
        entry.put("kind", decision.kind());
        entry.putAll(decision.fields());
        byte[] bytes = json.writeValueAsBytes(entry);
        if (bytes.length > TileCodec.MAX_ENTRY) {
            throw new IllegalArgumentException("its entry has " + bytes.length + " bytes (at most 65535)");
        }
        return bytes;
    }

    private void drain() {
        scheduled.set(false);
        for (byte[] entry; (entry = queued.poll()) != null; ) {
            if (waiting.size() >= MAX_WAITING) {
                LOG.error(
                        "the transparency log has {} entries waiting for its store; a decision is dropped",
                        MAX_WAITING);
                continue;
            }
            waiting.add(entry);
        }
        while (!waiting.isEmpty()) {
            List<byte[]> batch = waiting.subList(0, Math.min(MAX_BATCH, waiting.size()));
            try {
                log.append(new ArrayList<>(batch));
            } catch (IOException | RuntimeException e) {
                LOG.error(
                        "cannot append {} decisions to the transparency log (tried again in {}s): {}",
                        waiting.size(),
                        RETRY.toSeconds(),
                        e.toString());
                writer.schedule(this::drain, RETRY.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            batch.clear();
        }
    }

    /**
     * Waits, at most {@code timeout}, until every decision recorded before this call is in the log; true when it is.
     */
    public boolean flush(Duration timeout) throws InterruptedException {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        try {
            writer.execute(() -> {
                drain();
                done.complete(waiting.isEmpty() && queued.isEmpty());
            });
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException | ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Appends what is queued (waiting up to 30 seconds) and stops the writer. */
    @Override
    public void close() {
        try {
            if (!flush(Duration.ofSeconds(30))) {
                LOG.warn("closing with decisions not yet appended to the transparency log");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writer.shutdownNow();
    }
}
