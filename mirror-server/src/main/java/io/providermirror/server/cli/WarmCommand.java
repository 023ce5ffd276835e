package io.providermirror.server.cli;

import io.providermirror.server.app.CacheLock;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.logging.LoggingSetup;
import io.providermirror.server.warm.CacheWarmTarget;
import io.providermirror.server.warm.MirrorWarmTarget;
import io.providermirror.server.warm.ModuleWarmer;
import io.providermirror.server.warm.WarmTarget;
import io.providermirror.server.warm.Warmer;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code warm}: pre-seeds a mirror's cache, through a running mirror or directly in a cache directory. */
@Command(
        name = "warm",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Pre-seeds the cache: fetches and verifies provider archives before anyone asks for them.",
            "Through a running mirror (--mirror URL) or directly in a cache directory (--config FILE, with no mirror "
                    + "running on it). Archives already cached are skipped, so a run that was interrupted can be run again.",
            "Exits 0 when everything was warmed, 1 when anything failed, 2 on a usage error."
        },
        footer = {
            "",
            "Examples:",
            "  warm --mirror https://mirror.corp:8443/providers/ --ca ca.pem --platform linux_amd64 hashicorp/aws@'~> 5.0'",
            "  warm --config mirror.yaml --platform linux_amd64 --platform darwin_arm64 --lock-file .terraform.lock.hcl",
            "  warm --config mirror.yaml --platform linux_amd64 --dir ./infrastructure"
        })
public final class WarmCommand implements Callable<Integer> {

    @Option(
            names = "--mirror",
            paramLabel = "URL",
            description = "a running mirror's base URL, e.g. https://mirror.corp/providers/")
    URI mirror;

    @Option(
            names = "--ca",
            paramLabel = "FILE",
            description =
                    "PEM CA certificates to trust for --mirror (e.g. its generated ca.pem, in <cache.directory>-tls)")
    Path ca;

    @Option(names = "--token-file", paramLabel = "FILE", description = "a file holding the token --mirror wants")
    Path tokenFile;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "the mirror's configuration, to warm its cache directory directly")
    Path config;

    @Mixin
    ProviderSelection selection = new ProviderSelection();

    @Option(names = "--verbose", description = "also log what the mirror does (info lines, on stderr)")
    boolean verbose;

    private final PrintStream out;
    private final Map<String, String> environment;
    private final UnaryOperator<MirrorConfig> configView;

    public WarmCommand() {
        this(System.out, System.getenv(), UnaryOperator.identity());
    }

    /** For tests: where output goes, the environment, and a last say over the configuration. */
    public WarmCommand(PrintStream out, Map<String, String> environment, UnaryOperator<MirrorConfig> configView) {
        this.out = out;
        this.environment = Map.copyOf(environment);
        this.configView = configView;
    }

    @Override
    // The mirror runs on Java 17, where console() is null exactly when the output is not a terminal.
    @SuppressWarnings("SystemConsoleNull")
    public Integer call() throws Exception {
        LoggingSetup.forCommand(verbose);
        Optional<ProviderSelection.Resolved> selected = selection.resolve("warm", out);
        if (selected.isEmpty()) {
            return 2;
        }
        if (mirror != null && config != null) {
            out.println("warm: give --mirror (through a running mirror) or --config (its cache directory), not both");
            return 2;
        }
        try (WarmTarget target = target()) {
            boolean failed = false;
            if (!selected.get().requests().isEmpty()) {
                Warmer.Summary summary = selection.run(
                        new Warmer(target, out, System.console() != null && out == System.out, "warm"), selected.get());
                failed = summary.failed();
            }
            if (!selected.get().modules().isEmpty()) {
                failed |= selection
                        .runModules(new ModuleWarmer(target, out, "warm"), selected.get())
                        .failed();
            }
            return failed ? 1 : 0;
        } catch (CacheLock.InUseException e) {
            out.println(
                    "warm: " + e.getMessage() + "; warm a running mirror through its URL (warm --mirror https://...)");
            return 2;
        } catch (ConfigException | IOException e) {
            out.println("warm: " + e.getMessage());
            return 2;
        }
    }

    private WarmTarget target() throws IOException, ConfigException {
        if (mirror != null) {
            String token = tokenFile == null
                    ? null
                    : Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
            out.println("warm: through the mirror at " + mirror);
            return new MirrorWarmTarget(mirror, TrustedCertificates.sslContext(ca), token);
        }
        return new CacheWarmTarget(CommandCache.open("warm", config, environment, configView, out));
    }
}
