package io.providermirror.server.cli;

import io.providermirror.server.app.CacheLock;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.bundle.BundleCounts;
import io.providermirror.server.bundle.BundleExporter;
import io.providermirror.server.bundle.BundleManifest;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.DataSize;
import io.providermirror.server.face.modules.StoredModule;
import io.providermirror.server.logging.LoggingSetup;
import io.providermirror.server.warm.CacheWarmTarget;
import io.providermirror.server.warm.ModuleWarmer;
import io.providermirror.server.warm.Warmer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code export}: a bundle of selected providers, with everything needed to verify them again elsewhere. */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Writes a bundle (tar, or tar.zst when the file name ends in .zst) of selected providers and registry "
                    + "modules for a network without internet: provider archives with their origins' evidence (download "
                    + "documents with signing keys, SHA256SUMS, signatures), module archives with their pins, and version "
                    + "lists of just the bundled versions, to be verified again by import.",
            "Works on a cache directory (--config) with no mirror running on it, fetching and verifying what is not "
                    + "cached yet; without --config, on ./mirror-data if it exists.",
            "Exits 0 when the bundle was written, 1 when anything failed (then no bundle is written), 2 on a usage "
                    + "error, a configuration that does not load or a cache directory in use."
        },
        footer = {
            "",
            "Example:",
            "  export --config mirror.yaml --platform linux_amd64 --output providers.tar.zst hashicorp/aws@'~> 5.0' hashicorp/random"
        })
public final class ExportCommand implements Callable<Integer> {

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "the mirror's configuration (its cache directory and origins)")
    Path config;

    @Option(
            names = "--output",
            paramLabel = "FILE",
            required = true,
            description = "the bundle to write (.tar or .tar.zst)")
    Path output;

    @Mixin
    ProviderSelection selection = new ProviderSelection();

    @Option(names = "--verbose", description = "also log what the mirror does (info lines, on stderr)")
    boolean verbose;

    private final PrintStream out;
    private final Map<String, String> environment;

    public ExportCommand() {
        this(System.out, System.getenv());
    }

    public ExportCommand(PrintStream out, Map<String, String> environment) {
        this.out = out;
        this.environment = Map.copyOf(environment);
    }

    @Override
    public Integer call() throws Exception {
        LoggingSetup.forCommand(verbose);
        Optional<ProviderSelection.Resolved> selected = selection.resolve("export", out);
        if (selected.isEmpty()) {
            return 2;
        }
        try (MirrorWiring core = CommandCache.open("export", config, environment, UnaryOperator.identity(), out)) {
            CacheWarmTarget target = new CacheWarmTarget(core);
            List<Warmer.Job> archives = List.of();
            if (!selected.get().requests().isEmpty()) {
                Warmer.Summary summary = selection.run(new Warmer(target, out, false, "export"), selected.get());
                if (summary.failed()) {
                    out.println("export: no bundle written, since not everything could be fetched and verified");
                    return 1;
                }
                archives = summary.warmed();
            }
            List<StoredModule> modules = new ArrayList<>();
            if (!selected.get().modules().isEmpty()) {
                ModuleWarmer.Summary summary =
                        selection.runModules(new ModuleWarmer(target, out, "export"), selected.get());
                if (summary.failed()) {
                    out.println("export: no bundle written, since not every module could be fetched and pinned");
                    return 1;
                }
                for (ModuleWarmer.Warmed warmed : summary.warmed()) {
                    modules.add(new StoredModule(
                            warmed.address(),
                            warmed.version(),
                            core.modules()
                                    .pin(warmed.address(), warmed.version())
                                    .orElseThrow(),
                            0));
                }
            }
            BundleManifest manifest = new BundleExporter(core).export(archives, modules, output);
            out.println("export: wrote " + output + " (" + DataSize.format(Files.size(output)) + "): "
                    + BundleCounts.of(manifest).describe());
            return 0;
        } catch (CacheLock.InUseException e) {
            out.println("export: " + e.getMessage() + "; stop the mirror while exporting, or export from a copy of its "
                    + "cache directory (a --config whose cache.directory is the copy)");
            return 2;
        } catch (ConfigException | IOException e) {
            out.println("export: " + e.getMessage());
            return 2;
        }
    }
}
