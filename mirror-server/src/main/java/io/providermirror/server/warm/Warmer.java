package io.providermirror.server.warm;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pre-seeds a mirror: resolves each requested provider to versions (the newest that matches, or every
 * match), then fetches each version's archive for each chosen platform, several at a time, and reports a
 * summary. What is cached already is not fetched again, so an interrupted run can simply be started again.
 */
public final class Warmer {

    /** One archive to warm. */
    public record Job(ProviderAddress address, ProviderVersion version, Platform platform) {
        String name() {
            return address + " " + version + " " + platform;
        }
    }

    /** How a run went; {@code warmed} are the archives now in the cache, fetched or found there. */
    public record Summary(
            int fetched,
            int alreadyCached,
            long bytes,
            List<String> failures,
            List<String> notOffered,
            List<Job> warmed) {
        public boolean failed() {
            return !failures.isEmpty();
        }
    }

    private final WarmTarget target;
    private final PrintStream out;
    private final boolean interactive;
    private final String command;

    /** A warmer for {@code command} ({@code warm}, {@code export}), whose name starts each line it prints. */
    public Warmer(WarmTarget target, PrintStream out, boolean interactive, String command) {
        this.target = target;
        this.out = out;
        this.interactive = interactive;
        this.command = command;
    }

    public Summary run(List<ProviderRequest> requests, Set<Platform> platforms, boolean allVersions, int parallel)
            throws InterruptedException {
        long start = System.nanoTime();
        List<String> failures = new ArrayList<>();
        List<String> notOffered = new ArrayList<>();
        List<Job> jobs = plan(requests, platforms, allVersions, failures, notOffered);
        out.println(command + ": " + jobs.size() + " archive(s) of " + requests.size() + " provider request(s) for "
                + platforms.stream().map(Platform::toString).toList() + ", " + parallel + " at a time");
        AtomicLong bytes = new AtomicLong();
        int fetched = 0;
        int cached = 0;
        List<Job> warmed = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, parallel), r -> {
            Thread thread = new Thread(r, "warm");
            thread.setDaemon(true);
            return thread;
        });
        try (ProgressDisplay display = new ProgressDisplay(out, interactive)) {
            Map<Job, Future<Boolean>> running = new LinkedHashMap<>();
            for (Job job : jobs) {
                running.put(job, pool.submit(() -> {
                    ProgressDisplay.Bar bar = display.start(job.name());
                    try {
                        boolean already = target.warm(job.address(), job.version(), job.platform(), bar);
                        bar.finish(already ? "cached" : "done");
                        bytes.addAndGet(already ? 0 : bar.doneBytes());
                        return already;
                    } catch (Exception e) {
                        bar.finish("FAILED");
                        throw e;
                    }
                }));
            }
            for (Map.Entry<Job, Future<Boolean>> entry : running.entrySet()) {
                try {
                    if (entry.getValue().get()) {
                        cached++;
                    } else {
                        fetched++;
                    }
                    warmed.add(entry.getKey());
                } catch (ExecutionException e) {
                    failures.add(entry.getKey().name() + ": " + message(e.getCause()));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Summary summary = new Summary(fetched, cached, bytes.get(), failures, notOffered, warmed);
        out.println(String.format(
                Locale.ROOT,
                "%s: %d fetched (%s), %d already cached, %d failed, in %.1f s",
                command,
                fetched,
                size(bytes.get()),
                cached,
                failures.size(),
                (System.nanoTime() - start) / 1e9));
        notOffered.forEach(line -> out.println("  not offered: " + line));
        failures.forEach(line -> out.println("  FAILED: " + line));
        return summary;
    }

    private List<Job> plan(
            List<ProviderRequest> requests,
            Set<Platform> platforms,
            boolean allVersions,
            List<String> failures,
            List<String> notOffered) {
        Map<ProviderAddress, List<ProviderVersion>> listed = new LinkedHashMap<>();
        Set<Job> jobs = new LinkedHashSet<>();
        for (ProviderRequest request : requests) {
            List<ProviderVersion> available;
            try {
                available = listed.computeIfAbsent(request.address(), address -> {
                    try {
                        return target.versions(address);
                    } catch (Exception e) {
                        throw new IllegalStateException(message(e), e);
                    }
                });
            } catch (IllegalStateException e) {
                failures.add(
                        request.address() + " (" + request.source() + "): cannot list its versions: " + e.getMessage());
                continue;
            }
            List<ProviderVersion> matching = available.stream()
                    .filter(request.constraints()::matches)
                    .sorted(Comparator.reverseOrder())
                    .toList();
            if (matching.isEmpty()) {
                failures.add(request.address() + " (" + request.source() + "): no version matches "
                        + request.constraints() + " (the mirror lists " + available.size() + ")");
                continue;
            }
            for (ProviderVersion version : allVersions ? matching : matching.subList(0, 1)) {
                Set<Platform> offered;
                try {
                    offered = target.platforms(request.address(), version);
                } catch (Exception e) {
                    failures.add(
                            request.address() + " " + version + ": cannot read its version document: " + message(e));
                    continue;
                }
                for (Platform platform : platforms) {
                    if (offered.contains(platform)) {
                        jobs.add(new Job(request.address(), version, platform));
                    } else {
                        notOffered.add(request.address() + " " + version + " " + platform);
                    }
                }
            }
        }
        return new ArrayList<>(jobs);
    }

    private static String message(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof ExecutionException || cause instanceof java.util.concurrent.CompletionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    static String size(long bytes) {
        return io.providermirror.server.config.DataSize.format(bytes);
    }
}
