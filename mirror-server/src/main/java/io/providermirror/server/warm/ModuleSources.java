package io.providermirror.server.warm;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.VersionConstraints;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The registry modules a configuration calls: the {@code module} blocks of the {@code *.tf} files in a directory
 * whose {@code source} is a registry address ({@code [hostname/]namespace/name/system}, optionally with a
 * {@code //subdirectory}), with their {@code version} constraints. Local paths and direct sources ({@code git::},
 * {@code github.com/...}, URLs) go through no registry and are left out, as the CLI reads them.
 */
public final class ModuleSources {

    /** Hosts the CLI reads as go-getter shorthands, never as a registry's namespace. */
    private static final List<String> FORGES = List.of("github.com", "bitbucket.org", "gitlab.com");

    private ModuleSources() {}

    /** The registry modules called by every {@code *.tf} file directly in {@code directory}. */
    public static List<ModuleRequest> configurationDirectory(Path directory) throws IOException {
        List<ModuleRequest> requests = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.tf")) {
            for (Path file : files) {
                requests.addAll(moduleCalls(file));
            }
        }
        return requests;
    }

    static List<ModuleRequest> moduleCalls(Path file) throws IOException {
        List<ModuleRequest> requests = new ArrayList<>();
        Object modules = ProviderSources.parse(file).get("module");
        if (!(modules instanceof Map<?, ?> calls)) {
            return requests;
        }
        for (Map.Entry<?, ?> call : calls.entrySet()) {
            for (Object block : call.getValue() instanceof List<?> list ? list : List.of(call.getValue())) {
                if (!(block instanceof Map<?, ?> settings) || settings.get("source") == null) {
                    continue;
                }
                String where = file + " (module." + call.getKey() + ")";
                Optional<ModuleAddress> address =
                        registryAddress(settings.get("source").toString());
                if (address.isEmpty()) {
                    continue;
                }
                Object version = settings.get("version");
                try {
                    requests.add(new ModuleRequest(
                            address.get(), VersionConstraints.parse(version == null ? "" : version.toString()), where));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
                }
            }
        }
        return requests;
    }

    /** The registry address of a module source, if it is one (else it is a local path or a direct source). */
    static Optional<ModuleAddress> registryAddress(String source) {
        String text = source.trim();
        if (text.startsWith("./")
                || text.startsWith("../")
                || text.startsWith("/")
                || text.contains("::")
                || text.contains("?")
                || text.contains("://")) {
            return Optional.empty();
        }
        int subdirectory = text.indexOf("//");
        String address = subdirectory < 0 ? text : text.substring(0, subdirectory);
        String[] parts = address.split("/", -1);
        try {
            if (parts.length == 3 && !FORGES.contains(parts[0].toLowerCase(Locale.ROOT))) {
                return Optional.of(new ModuleAddress(ProviderSources.DEFAULT_HOSTNAME, parts[0], parts[1], parts[2]));
            }
            if (parts.length == 4 && !FORGES.contains(parts[0].toLowerCase(Locale.ROOT))) {
                return Optional.of(new ModuleAddress(parts[0].toLowerCase(Locale.ROOT), parts[1], parts[2], parts[3]));
            }
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
