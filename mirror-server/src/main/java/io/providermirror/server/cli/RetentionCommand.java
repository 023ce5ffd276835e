package io.providermirror.server.cli;

import io.providermirror.server.app.CacheLock;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.logging.LoggingSetup;
import io.providermirror.server.purge.PurgeReport;
import io.providermirror.server.purge.Retention;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code retention}: removes (or lists) the archives no client requested for {@code cache.retention.unusedFor}. */
@Command(
        name = "retention",
        mixinStandardHelpOptions = true,
        description = {
            "Removes the archives no client has requested for cache.retention.unusedFor (or --unused-for), as a "
                    + "running mirror does every cache.retention.interval; with --dry-run lists them and the space "
                    + "they take. Needs the cache to itself: a running mirror applies retention on its own.",
            "Exits 0 when it ran, 2 when nothing was tried."
        })
public final class RetentionCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "the mirror's configuration (its cache)")
    Path config;

    @Option(names = "--dry-run", description = "list what would be removed and the space it frees; remove nothing")
    boolean dryRun;

    @Option(
            names = "--unused-for",
            paramLabel = "DURATION",
            description = "instead of cache.retention.unusedFor, as an ISO-8601 duration (e.g. P90D)")
    Duration unusedFor;

    private final PrintStream out;
    private final Map<String, String> environment;

    public RetentionCommand() {
        this(System.out, System.getenv());
    }

    public RetentionCommand(PrintStream out, Map<String, String> environment) {
        this.out = out;
        this.environment = Map.copyOf(environment);
    }

    @Override
    public Integer call() {
        LoggingSetup.forCommand(false);
        MirrorConfig loaded;
        try {
            loaded = CommandCache.configuration("retention", config, environment, UnaryOperator.identity(), out);
        } catch (ConfigException e) {
            out.println("retention: " + e.getMessage());
            return 2;
        }
        Duration unused =
                unusedFor != null ? unusedFor : loaded.cache().retention().unusedFor();
        if (unused == null || unused.isZero() || unused.isNegative()) {
            out.println("retention: give cache.retention.unusedFor in the configuration, or --unused-for (e.g. P90D)");
            return 2;
        }
        try (MirrorWiring core = CommandCache.open(loaded)) {
            PurgeReport report = Retention.ofFleet(
                            core.blobs(),
                            core.purge(),
                            core.inventory(),
                            loaded.cache().s3() != null,
                            unused,
                            core.clock())
                    .run(dryRun);
            report.files().forEach(file -> out.println((dryRun ? "  would remove " : "  removed ") + file));
            out.println("retention: "
                    + (report.empty()
                            ? "every archive was requested within " + unused
                            : report.summary() + (dryRun ? "; that frees " + report.archiveBytes() + " bytes" : "")));
            return 0;
        } catch (CacheLock.InUseException e) {
            out.println("retention: " + e.getMessage() + " (a running mirror): it applies cache.retention itself; "
                    + "stop it to run retention from here");
            return 2;
        } catch (IOException e) {
            out.println("retention: " + e.getMessage());
            return 2;
        }
    }
}
