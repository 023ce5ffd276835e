package io.providermirror.server.warm;

import com.bertramlabs.plugins.hcl4j.HCLParser;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.VersionConstraints;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the providers to pre-seed come from: command-line addresses with optional constraints
 * ({@code hashicorp/aws@~> 5.0}), the {@code provider} blocks of {@code .terraform.lock.hcl} files (exact
 * versions), and the {@code required_providers} of the {@code *.tf} files in a directory, read as Terraform
 * reads them (a bare name is {@code registry.terraform.io/hashicorp/<name>}).
 */
public final class ProviderSources {

    /** The registry a provider address without a hostname means. */
    public static final String DEFAULT_HOSTNAME = "registry.terraform.io";

    private ProviderSources() {}

    /**
     * Every provider a command names: its arguments, then the exact versions of its lock files, then the
     * required providers of its configuration directories.
     */
    public static List<ProviderRequest> all(List<String> arguments, List<Path> lockFiles, List<Path> directories)
            throws IOException {
        List<ProviderRequest> requests = new ArrayList<>();
        arguments.forEach(argument -> requests.add(argument(argument)));
        for (Path lockFile : lockFiles) {
            requests.addAll(lockFile(lockFile));
        }
        for (Path directory : directories) {
            requests.addAll(configurationDirectory(directory));
        }
        return requests;
    }

    /** {@code [hostname/]namespace/type[@constraint]}. */
    public static ProviderRequest argument(String text) {
        int at = text.indexOf('@');
        String address = at < 0 ? text : text.substring(0, at);
        String constraint = at < 0 ? "" : text.substring(at + 1);
        return new ProviderRequest(
                address(address, "argument '" + text + "'"),
                VersionConstraints.parse(constraint),
                "argument '" + text + "'");
    }

    /** The exact versions a lock file records. */
    public static List<ProviderRequest> lockFile(Path file) throws IOException {
        Map<String, Object> parsed = parse(file);
        List<ProviderRequest> requests = new ArrayList<>();
        Object providers = parsed.get("provider");
        if (providers instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                Object version = entry.getValue() instanceof Map<?, ?> block ? block.get("version") : null;
                if (version == null) {
                    throw new IOException(file + ": provider \"" + entry.getKey() + "\" has no version");
                }
                requests.add(new ProviderRequest(
                        address(entry.getKey().toString(), file.toString()),
                        VersionConstraints.parse("= " + version),
                        file.toString()));
            }
        }
        return requests;
    }

    /** The {@code required_providers} of every {@code *.tf} file directly in {@code directory}. */
    public static List<ProviderRequest> configurationDirectory(Path directory) throws IOException {
        List<ProviderRequest> requests = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.tf")) {
            for (Path file : files) {
                requests.addAll(requiredProviders(file));
            }
        }
        return requests;
    }

    static List<ProviderRequest> requiredProviders(Path file) throws IOException {
        Map<String, Object> parsed = parse(file);
        List<ProviderRequest> requests = new ArrayList<>();
        for (Object terraform : blocks(parsed.get("terraform"))) {
            if (!(terraform instanceof Map<?, ?> settings)) {
                continue;
            }
            for (Object required : blocks(settings.get("required_providers"))) {
                if (!(required instanceof Map<?, ?> providers)) {
                    continue;
                }
                for (Map.Entry<?, ?> provider : providers.entrySet()) {
                    String name = provider.getKey().toString();
                    String source = "hashicorp/" + name;
                    String constraint = "";
                    if (provider.getValue() instanceof Map<?, ?> spec) {
                        source = spec.get("source") == null
                                ? source
                                : spec.get("source").toString();
                        constraint = spec.get("version") == null
                                ? ""
                                : spec.get("version").toString();
                    } else if (provider.getValue() != null) {
                        constraint = provider.getValue().toString();
                    }
                    String where = file + " (required_providers." + name + ")";
                    requests.add(
                            new ProviderRequest(address(source, where), VersionConstraints.parse(constraint), where));
                }
            }
        }
        return requests;
    }

    private static List<?> blocks(Object value) {
        return value == null ? List.of() : value instanceof List<?> list ? list : List.of(value);
    }

    static Map<String, Object> parse(Path file) throws IOException {
        try {
            return new HCLParser().parse(file.toFile(), "UTF-8");
        } catch (IOException e) {
            throw e;
        } catch (Exception | LinkageError e) {
            throw new IOException("cannot read " + file + " as HCL: " + e.getMessage(), e);
        }
    }

    /** {@code [hostname/]namespace/type}, lower-cased as the CLI does. */
    static ProviderAddress address(String text, String where) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split("/");
        try {
            if (parts.length == 2) {
                return new ProviderAddress(DEFAULT_HOSTNAME, parts[0], parts[1]);
            }
            if (parts.length == 3) {
                return new ProviderAddress(parts[0], parts[1], parts[2]);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    where + ": '" + text + "' is not a provider address: " + e.getMessage(), e);
        }
        throw new IllegalArgumentException(where + ": '" + text
                + "' is not a provider address (expected [hostname/]namespace/type, e.g. hashicorp/aws)");
    }
}
