package io.providermirror.server.warm;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Pre-seeds a mirror with registry modules: resolves each requested module to versions (the newest that matches,
 * or every match) and has the mirror fetch and pin each, one line per version. What is cached already is not
 * fetched again.
 */
public final class ModuleWarmer {

    /** How a run went. */
    public record Summary(int fetched, int alreadyCached, List<String> failures, List<Warmed> warmed) {
        public boolean failed() {
            return !failures.isEmpty();
        }
    }

    private record Job(ModuleAddress address, ProviderVersion version) {}

    /** A module version now in the cache, fetched or found there. */
    public record Warmed(ModuleAddress address, ProviderVersion version) {}

    private final WarmTarget target;
    private final PrintStream out;
    private final String command;

    /** A warmer for {@code command} ({@code warm}, {@code export}), whose name starts each summary it prints. */
    public ModuleWarmer(WarmTarget target, PrintStream out, String command) {
        this.target = target;
        this.out = out;
        this.command = command;
    }

    public Summary run(List<ModuleRequest> requests, boolean allVersions) {
        List<String> failures = new ArrayList<>();
        Set<Job> jobs = new LinkedHashSet<>();
        for (ModuleRequest request : requests) {
            List<ProviderVersion> available;
            try {
                available = target.moduleVersions(request.address());
            } catch (Exception e) {
                failures.add("module " + request.address() + " (" + request.source() + "): cannot list its versions: "
                        + message(e));
                continue;
            }
            List<ProviderVersion> matching = available.stream()
                    .filter(request.constraints()::matches)
                    .sorted(Comparator.reverseOrder())
                    .toList();
            if (matching.isEmpty()) {
                failures.add("module " + request.address() + " (" + request.source() + "): no version matches "
                        + request.constraints() + " (the mirror lists " + available.size() + ")");
                continue;
            }
            for (ProviderVersion version : allVersions ? matching : matching.subList(0, 1)) {
                jobs.add(new Job(request.address(), version));
            }
        }
        int fetched = 0;
        int cached = 0;
        List<Warmed> warmed = new ArrayList<>();
        for (Job job : jobs) {
            String name = "module " + job.address() + " " + job.version();
            try {
                boolean already = target.warmModule(job.address(), job.version());
                warmed.add(new Warmed(job.address(), job.version()));
                if (already) {
                    cached++;
                    out.println("  " + name + ": cached");
                } else {
                    fetched++;
                    out.println("  " + name + ": done");
                }
            } catch (Exception e) {
                failures.add(name + ": " + message(e));
                out.println("  " + name + ": FAILED");
            }
        }
        out.println(command + ": modules: " + fetched + " fetched, " + cached + " already cached, " + failures.size()
                + " failed");
        failures.forEach(line -> out.println("  FAILED: " + line));
        return new Summary(fetched, cached, failures, warmed);
    }

    private static String message(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }
}
