package io.providermirror.server.cli;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.CacheLock;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.logging.LoggingSetup;
import io.providermirror.server.purge.PurgeReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code purge provider ADDRESS [VERSION] [--platform P]...} and {@code purge module MODULE VERSION}: removes them from
 * the cache (directory or bucket); through the running mirror's operator API when a mirror holds the cache directory.
 */
@Command(
        name = "purge",
        mixinStandardHelpOptions = true,
        description = {
            "Removes a provider (every version), a provider version (or only some platforms' archives) or a module "
                    + "version (with its pin) from the cache. What is purged is fetched again on its next request, "
                    + "unless the policy refuses it. When a mirror is running on this cache directory, the purge "
                    + "goes through its operator API (an operator token, see --operator-token-file).",
            "Exits 0 when something was removed (or would be, with --dry-run), 1 when the cache holds nothing of it, "
                    + "2 when nothing was tried."
        },
        subcommands = {PurgeCommand.Provider.class, PurgeCommand.Module.class})
public final class PurgeCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        System.out.println("purge: name what to purge: provider or module (see purge --help)");
        return 2;
    }

    /** What both subcommands share: the cache, the API, the dry run, and how a purge is run and reported. */
    abstract static class Target implements Callable<Integer> {

        @Option(names = "--config", paramLabel = "FILE", description = "the mirror's configuration (its cache)")
        Path config;

        @Option(names = "--dry-run", description = "list what would be removed, remove nothing")
        boolean dryRun;

        @Mixin
        OperatorOptions operator = new OperatorOptions();

        final PrintStream out;
        final Map<String, String> environment;

        Target(PrintStream out, Map<String, String> environment) {
            this.out = out;
            this.environment = Map.copyOf(environment);
        }

        /** The purge on an opened cache. */
        abstract PurgeReport purge(MirrorWiring core) throws IOException;

        /** The operator API path (below /api/v1/) of the same purge. */
        abstract String apiPath();

        /** Checks the arguments; a message when they are wrong. */
        abstract Optional<String> parse();

        @Override
        public Integer call() {
            LoggingSetup.forCommand(false);
            Optional<String> wrong;
            try {
                wrong = parse();
            } catch (IllegalArgumentException e) {
                wrong = Optional.of(e.getMessage());
            }
            if (wrong.isPresent()) {
                out.println("purge: " + wrong.get());
                return 2;
            }
            MirrorConfig loaded;
            try {
                loaded = CommandCache.configuration("purge", config, environment, UnaryOperator.identity(), out);
            } catch (ConfigException e) {
                out.println("purge: " + e.getMessage());
                return 2;
            }
            try (MirrorWiring core = CommandCache.open(loaded)) {
                PurgeReport report = purge(core);
                report.files().forEach(file -> out.println((dryRun ? "  would remove " : "  removed ") + file));
                out.println("purge: " + report.summary());
                return report.empty() ? 1 : 0;
            } catch (CacheLock.InUseException e) {
                return throughRunningMirror(loaded, e);
            } catch (IOException e) {
                out.println("purge: " + e.getMessage());
                return 2;
            }
        }

        private int throughRunningMirror(MirrorConfig loaded, CacheLock.InUseException inUse) {
            if (dryRun) {
                out.println("purge: " + inUse.getMessage() + " (a running mirror); --dry-run needs the cache to "
                        + "itself: stop the mirror, or purge without --dry-run through its operator API");
                return 2;
            }
            OperatorClient api;
            try {
                api = OperatorClient.of(loaded, operator.mirrorUrl, operator.operatorTokenFile, environment, "purge");
            } catch (OperatorClient.UnusableException e) {
                out.println("purge: " + inUse.getMessage() + " (a running mirror); " + e.getMessage());
                return 2;
            }
            out.println("purge: a mirror is running on it; purging through its operator API at " + api.base());
            OperatorClient.Answer answer;
            try {
                answer = api.delete(apiPath());
            } catch (IOException e) {
                out.println("purge: " + e.getMessage());
                return 2;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 2;
            }
            if (answer.ok()) {
                answer.body().path("files").forEach(file -> out.println("  removed " + file.asText()));
                out.println("purge: " + answer.body().path("summary").asText());
                return 0;
            }
            out.println("purge: " + answer.error());
            return answer.status() == 404 ? 1 : 2;
        }
    }

    /** {@code purge provider}. */
    @Command(
            name = "provider",
            mixinStandardHelpOptions = true,
            description = "Purges a provider: every version, or VERSION, or only the archives of --platform.")
    public static final class Provider extends Target {

        @Parameters(index = "0", paramLabel = "PROVIDER", description = "hostname/namespace/type")
        String provider;

        @Parameters(index = "1", arity = "0..1", paramLabel = "VERSION", description = "one version, e.g. 5.31.0")
        String version;

        @Option(
                names = "--platform",
                paramLabel = "OS_ARCH",
                description = "only this platform's archive of VERSION (repeatable), e.g. linux_amd64")
        List<String> platformNames = new ArrayList<>();

        private ProviderAddress address;
        private Optional<ProviderVersion> parsedVersion = Optional.empty();
        private final Set<Platform> platforms = new LinkedHashSet<>();

        public Provider() {
            this(System.out, System.getenv());
        }

        public Provider(PrintStream out, Map<String, String> environment) {
            super(out, environment);
        }

        @Override
        Optional<String> parse() {
            address = ProviderAddress.parse(provider);
            if (version != null) {
                parsedVersion = ProviderVersion.parse(version);
                if (parsedVersion.isEmpty()) {
                    return Optional.of("version '" + version + "' is not a semantic version such as 5.31.0");
                }
            }
            for (String name : platformNames) {
                platforms.add(Platform.parse(name));
            }
            if (!platforms.isEmpty() && parsedVersion.isEmpty()) {
                return Optional.of("--platform names the archives of one version: give VERSION too");
            }
            return Optional.empty();
        }

        @Override
        PurgeReport purge(MirrorWiring core) throws IOException {
            return core.purge().provider(address, parsedVersion, platforms, dryRun, "purged by an operator (command)");
        }

        @Override
        String apiPath() {
            StringBuilder path = new StringBuilder("providers/" + address);
            parsedVersion.ifPresent(v -> path.append('/').append(v));
            String separator = "?";
            for (Platform platform : platforms) {
                path.append(separator).append("platform=").append(platform);
                separator = "&";
            }
            return path.toString();
        }
    }

    /** {@code purge module}. */
    @Command(
            name = "module",
            mixinStandardHelpOptions = true,
            description = "Purges a module version: its archive, its details and its pin (the pin is released: the "
                    + "next fetch pins what the source then holds).")
    public static final class Module extends Target {

        @Parameters(index = "0", paramLabel = "MODULE", description = "hostname/namespace/name/system")
        String module;

        @Parameters(index = "1", paramLabel = "VERSION", description = "the module version, e.g. 1.2.0")
        String version;

        private ModuleAddress address;
        private ProviderVersion parsedVersion;

        public Module() {
            this(System.out, System.getenv());
        }

        public Module(PrintStream out, Map<String, String> environment) {
            super(out, environment);
        }

        @Override
        Optional<String> parse() {
            address = ModuleAddress.parse(module);
            Optional<ProviderVersion> parsed = ProviderVersion.parse(version);
            if (parsed.isEmpty()) {
                return Optional.of("version '" + version + "' is not a semantic version such as 1.2.0");
            }
            parsedVersion = parsed.get();
            return Optional.empty();
        }

        @Override
        PurgeReport purge(MirrorWiring core) throws IOException {
            return core.purge().module(address, parsedVersion, dryRun, "purged by an operator (command)");
        }

        @Override
        String apiPath() {
            return "modules/" + address + "/" + parsedVersion;
        }
    }
}
