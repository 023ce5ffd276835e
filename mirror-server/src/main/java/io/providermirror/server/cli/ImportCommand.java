package io.providermirror.server.cli;

import io.providermirror.server.app.CacheLock;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.bundle.BundleImporter;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.DataSize;
import io.providermirror.server.logging.LoggingSetup;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code import}: brings bundles into a cache directory after verifying everything in them again. */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        description = {
            "Brings bundles written by export into a cache directory (--config, or ./mirror-data if it exists; no "
                    + "mirror may be running on it). Every entry is checked against the bundle's manifest, every release's signature against its "
                    + "origin's keys under this mirror's signature policy (upstream.hosts.<host>.trustedKeys applies), every "
                    + "archive against its verified hash; only then does anything enter the cache. An altered bundle is "
                    + "refused whole; so is a truncated one.",
            "Exits 0 when every bundle was imported, 1 when one was refused, 2 when nothing was tried: a bundle "
                    + "that does not exist, a configuration that does not load, a cache directory in use."
        })
public final class ImportCommand implements Callable<Integer> {

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "the mirror's configuration (its cache directory and policy)")
    Path config;

    @Option(names = "--verbose", description = "also log what the mirror does (info lines, on stderr)")
    boolean verbose;

    @Parameters(paramLabel = "BUNDLE", arity = "1..*", description = "bundles (.tar or .tar.zst)")
    List<Path> bundles = new ArrayList<>();

    private final PrintStream out;
    private final Map<String, String> environment;

    public ImportCommand() {
        this(System.out, System.getenv());
    }

    public ImportCommand(PrintStream out, Map<String, String> environment) {
        this.out = out;
        this.environment = Map.copyOf(environment);
    }

    @Override
    public Integer call() {
        LoggingSetup.forCommand(verbose);
        List<String> unreadable = bundles.stream()
                .map(ImportCommand::unreadable)
                .filter(java.util.Objects::nonNull)
                .toList();
        if (!unreadable.isEmpty()) {
            unreadable.forEach(problem -> out.println("import: " + problem));
            out.println("import: nothing was imported");
            return 2;
        }
        try (MirrorWiring core = CommandCache.open("import", config, environment, UnaryOperator.identity(), out)) {
            int exit = 0;
            for (Path bundle : bundles) {
                try {
                    BundleImporter.Report report = new BundleImporter(core).importBundle(bundle);
                    out.println("import: " + bundle + " (" + DataSize.format(Files.size(bundle)) + "): "
                            + report.carried().describe() + ", " + added(report));
                    report.signingKeysByHost()
                            .forEach((host, keys) ->
                                    out.println("  " + host + ": signed by key(s) " + String.join(", ", keys)));
                } catch (BundleImporter.RefusedException e) {
                    out.println("import: REFUSED " + bundle + ": " + e.getMessage() + "; nothing of it was imported");
                    exit = 1;
                }
            }
            return exit;
        } catch (CacheLock.InUseException e) {
            out.println(
                    "import: " + e.getMessage() + "; stop the mirror while importing (started again, it serves what "
                            + "was imported), or import into a copy of its cache directory and start the mirror on the copy");
            return 2;
        } catch (ConfigException | IOException e) {
            out.println("import: " + e.getMessage());
            return 2;
        }
    }

    /** What the import added to the cache, or that it added nothing. */
    private static String added(BundleImporter.Report report) {
        if (report.addedNothing()) {
            return "verified; nothing new: the cache held all of it already";
        }
        return "verified and cached; new here: " + report.newArchives() + " archive(s), " + report.newModuleVersions()
                + " module version(s), " + report.newlyListed() + " version(s) added to version lists";
    }

    /** What keeps {@code bundle} from being read, checked before the cache is opened; null when nothing does. */
    private static String unreadable(Path bundle) {
        if (!Files.exists(bundle)) {
            return bundle.toAbsolutePath() + ": the file does not exist";
        }
        if (!Files.isRegularFile(bundle)) {
            return bundle.toAbsolutePath() + ": not a file (a bundle is one .tar or .tar.zst file)";
        }
        if (!Files.isReadable(bundle)) {
            return bundle.toAbsolutePath() + ": the file cannot be read (permission denied)";
        }
        return null;
    }
}
