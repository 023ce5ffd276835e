package io.providermirror.server.cli;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.app.CacheLock;
import io.providermirror.server.app.MirrorWiring;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.logging.LoggingSetup;
import io.providermirror.server.operator.OperatorService;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code modules}: what an operator does with the modules in a cache directory. */
@Command(
        name = "modules",
        mixinStandardHelpOptions = true,
        description = "Operator commands for registry modules in a cache directory.",
        subcommands = {ModulesCommand.Accept.class})
public final class ModulesCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        System.out.println("modules: name a subcommand: accept (see modules --help)");
        return 2;
    }

    /** {@code modules accept}: lets the next fetch of a pinned module version replace its pin. */
    @Command(
            name = "accept",
            mixinStandardHelpOptions = true,
            description = {
                "Accepts new content for a module version whose source changed since the mirror pinned it (a moved "
                        + "git tag, a replaced archive), after you checked that the change is wanted. The cached "
                        + "archive is dropped and the next request fetches the source again and pins what it finds. "
                        + "When a mirror is running on this cache directory (--config), the pin is released through its "
                        + "operator API (an operator token, see --operator-token-file), with no outage.",
                "Exits 0 when the pin was released, 1 when the version has no pin, 2 when nothing was tried."
            })
    public static final class Accept implements Callable<Integer> {

        @Option(names = "--config", paramLabel = "FILE", description = "the mirror's configuration (its cache)")
        Path config;

        @Mixin
        OperatorOptions operator = new OperatorOptions();

        @Parameters(index = "0", paramLabel = "MODULE", description = "hostname/namespace/name/system")
        String module;

        @Parameters(index = "1", paramLabel = "VERSION", description = "the module version, e.g. 1.2.0")
        String version;

        private final PrintStream out;
        private final Map<String, String> environment;

        public Accept() {
            this(System.out, System.getenv());
        }

        public Accept(PrintStream out, Map<String, String> environment) {
            this.out = out;
            this.environment = Map.copyOf(environment);
        }

        @Override
        public Integer call() {
            LoggingSetup.forCommand(false);
            ModuleAddress address;
            Optional<ProviderVersion> parsed = ProviderVersion.parse(version);
            try {
                address = ModuleAddress.parse(module);
            } catch (IllegalArgumentException e) {
                out.println("modules accept: " + e.getMessage());
                return 2;
            }
            if (parsed.isEmpty()) {
                out.println("modules accept: version '" + version + "' is not a semantic version such as 1.2.0");
                return 2;
            }
            MirrorConfig loaded;
            try {
                loaded = CommandCache.configuration(
                        "modules accept", config, environment, UnaryOperator.identity(), out);
            } catch (ConfigException e) {
                out.println("modules accept: " + e.getMessage());
                return 2;
            }
            try (MirrorWiring core = CommandCache.open(loaded)) {
                ModulePin pin = core.purge().acceptModule(address, parsed.get());
                out.println("modules accept: " + OperatorService.released(address, parsed.get(), pin));
                return 0;
            } catch (IllegalArgumentException e) {
                out.println("modules accept: " + e.getMessage());
                return 1;
            } catch (CacheLock.InUseException e) {
                return throughRunningMirror(loaded, address, parsed.get(), e);
            } catch (IOException e) {
                out.println("modules accept: " + e.getMessage());
                return 2;
            }
        }

        /** Releases the pin through the operator API of the mirror that holds the cache directory, when it can. */
        private int throughRunningMirror(
                MirrorConfig loaded, ModuleAddress address, ProviderVersion version, CacheLock.InUseException inUse) {
            OperatorClient api;
            try {
                api = OperatorClient.of(
                        loaded, operator.mirrorUrl, operator.operatorTokenFile, environment, "modules accept");
            } catch (OperatorClient.UnusableException e) {
                out.println("modules accept: " + inUse.getMessage() + " (a running mirror); " + e.getMessage());
                return 2;
            }
            out.println("modules accept: a mirror is running on it; releasing the pin through its operator API at "
                    + api.base());
            OperatorClient.Answer answer;
            try {
                answer =
                        api.post("modules/" + address + "/" + version + "/accept", HttpRequest.BodyPublishers.noBody());
            } catch (IOException e) {
                out.println("modules accept: " + e.getMessage());
                return 2;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 2;
            }
            if (answer.ok()) {
                out.println("modules accept: " + answer.body().path("summary").asText());
                return 0;
            }
            out.println("modules accept: " + answer.error());
            return answer.status() == 404 ? 1 : 2;
        }
    }
}
