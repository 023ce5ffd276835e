package io.providermirror.server.cli;

import io.providermirror.model.Platform;
import io.providermirror.server.warm.ModuleRequest;
import io.providermirror.server.warm.ModuleSources;
import io.providermirror.server.warm.ModuleWarmer;
import io.providermirror.server.warm.ProviderRequest;
import io.providermirror.server.warm.ProviderSources;
import io.providermirror.server.warm.Warmer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Which providers, versions and platforms a command fetches, as {@code warm} and {@code export} take them (a
 * picocli mixin, so both commands spell and check them the same way).
 */
public final class ProviderSelection {

    /** The providers and platforms chosen, resolved. */
    record Resolved(List<ProviderRequest> requests, List<ModuleRequest> modules, Set<Platform> platforms) {}

    @Option(
            names = "--platform",
            paramLabel = "OS_ARCH",
            required = true,
            split = ",",
            description = "platforms to fetch (repeatable), e.g. linux_amd64")
    List<String> platforms = new ArrayList<>();

    @Option(
            names = "--lock-file",
            paramLabel = "FILE",
            description = "a .terraform.lock.hcl: its exact versions (repeatable)")
    List<Path> lockFiles = new ArrayList<>();

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "a Terraform configuration: the required_providers of its *.tf files, and the registry "
                    + "modules its module blocks call (repeatable)")
    List<Path> directories = new ArrayList<>();

    @Option(names = "--all-versions", description = "every version that matches a constraint, not only the newest")
    boolean allVersions;

    @Option(
            names = "--parallel",
            paramLabel = "N",
            defaultValue = "4",
            description = "archives fetched at a time (default: ${DEFAULT-VALUE})")
    int parallel;

    @Parameters(
            paramLabel = "PROVIDER",
            arity = "0..*",
            description =
                    "[hostname/]namespace/type[@constraint], e.g. hashicorp/aws@~> 5.0 (hostname: registry.terraform.io)")
    List<String> providers = new ArrayList<>();

    /**
     * The requests and platforms given, or empty after telling {@code out} why there are none ({@code command}
     * starts the line, as every message of that command does).
     */
    Optional<Resolved> resolve(String command, PrintStream out) {
        List<ProviderRequest> requests;
        List<ModuleRequest> modules = new ArrayList<>();
        Set<Platform> chosen = new LinkedHashSet<>();
        try {
            requests = ProviderSources.all(providers, lockFiles, directories);
            for (Path directory : directories) {
                modules.addAll(ModuleSources.configurationDirectory(directory));
            }
            platforms.forEach(p -> chosen.add(Platform.parse(p)));
        } catch (IllegalArgumentException | IOException e) {
            out.println(command + ": " + e.getMessage());
            return Optional.empty();
        }
        if (requests.isEmpty() && modules.isEmpty()) {
            out.println(command + ": nothing to " + command + ": give providers, --lock-file or --dir");
            return Optional.empty();
        }
        return Optional.of(new Resolved(requests, modules, chosen));
    }

    /** Fetches what {@code resolved} names with {@code warmer}, as the options say. */
    Warmer.Summary run(Warmer warmer, Resolved resolved) throws InterruptedException {
        return warmer.run(resolved.requests(), resolved.platforms(), allVersions, parallel);
    }

    /** Fetches the registry modules {@code resolved} names with {@code warmer}, as the options say. */
    ModuleWarmer.Summary runModules(ModuleWarmer warmer, Resolved resolved) {
        return warmer.run(resolved.modules(), allVersions);
    }
}
