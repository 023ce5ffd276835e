package io.providermirror.server.bundle;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.providermirror.server.MirrorCore;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code import}: brings bundles into a cache directory after verifying everything in them again. */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Brings bundles written by export into a cache directory (--config; no mirror may be running on "
                + "it). Every entry is checked against the bundle's manifest, every release's signature against its "
                + "origin's keys under this mirror's signature policy (upstream.hosts.<host>.trustedKeys applies), every "
                + "archive against its verified hash; only then does anything enter the cache. An altered bundle is "
                + "refused whole.", "Exits 0 when every bundle was imported, 1 when one was refused."})
public final class ImportCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "the mirror's configuration (its cache directory and policy)")
    Path config;

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
        try (MirrorCore core = MirrorCore.open(new ConfigLoader(environment).load(config), Clock.systemUTC(), false,
                UnaryOperator.identity(), new SimpleMeterRegistry())) {
            int exit = 0;
            for (Path bundle : bundles) {
                try {
                    BundleImporter.Report report = new BundleImporter(core).importBundle(bundle);
                    out.println("import: " + bundle + ": " + report.releases() + " release(s), " + report.archives()
                            + " archive(s), " + report.bytes() + " bytes, verified and cached");
                    report.signingKeysByHost().forEach((host, keys) ->
                            out.println("  " + host + ": signed by key(s) " + String.join(", ", keys)));
                } catch (BundleImporter.RefusedException e) {
                    out.println("import: REFUSED " + bundle + ": " + e.getMessage() + "; nothing of it was imported");
                    exit = 1;
                }
            }
            return exit;
        } catch (ConfigException | IOException e) {
            out.println("import: " + e.getMessage());
            return 2;
        }
    }
}
