package io.providermirror.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the end-to-end tests give the real {@code terraform} CLI and read back from it: configurations that require a
 * provider or call a registry module, CLI configuration blocks, and the lock file's hashes and the outputs after a
 * run.
 */
public final class TerraformWorkspace {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LOCKED_HASH = Pattern.compile("\"((?:h1|zh):[^\"]+)\"");

    private TerraformWorkspace() {}

    /** Writes {@code files} (file name, text) into {@code directory}, made if missing; returns the directory. */
    public static Path write(Path directory, Map<String, String> files) throws IOException {
        Files.createDirectories(directory);
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.writeString(directory.resolve(file.getKey()), file.getValue());
        }
        return directory;
    }

    /** A {@code terraform} block requiring the provider {@code source} (host/namespace/type) as {@code name}. */
    public static String requiredProvider(String name, String source, String version) {
        return """
                terraform {
                  required_providers {
                    %s = {
                      source  = "%s"
                      version = "%s"
                    }
                  }
                }
                """.formatted(name, source, version);
    }

    /** A {@code module} call of {@code source} (host/namespace/name/system) and an output of its {@code version}. */
    public static String moduleCall(String name, String source, String version) {
        return """
                module "%s" {
                  source  = "%s"
                  version = "%s"
                }
                output "%s" {
                  value = module.%s.version
                }
                """.formatted(name, source, version, name, name);
    }

    /** A CLI configuration that installs every provider through the network mirror at {@code url}. */
    public static String networkMirror(String url) {
        return """
                provider_installation {
                  network_mirror {
                    url = "%s"
                  }
                }
                """.formatted(url);
    }

    /** A CLI configuration block that sends {@code host}'s {@code service} (such as {@code modules.v1}) to {@code url}. */
    public static String hostService(String host, String service, String url) {
        return """
                host "%s" {
                  services = {
                    "%s" = "%s"
                  }
                }
                """.formatted(host, service, url);
    }

    /** The {@code h1:} and {@code zh:} hashes in the directory's {@code .terraform.lock.hcl}. */
    public static Set<String> lockedHashes(Path directory) throws IOException {
        Matcher m = LOCKED_HASH.matcher(Files.readString(directory.resolve(".terraform.lock.hcl")));
        Set<String> hashes = new TreeSet<>();
        while (m.find()) {
            hashes.add(m.group(1));
        }
        return hashes;
    }

    /** The root module's outputs after an {@code apply} in {@code directory}, name to value. */
    public static Map<String, String> outputs(TerraformCli cli, Path directory)
            throws IOException, InterruptedException {
        TerraformCli.Result output = cli.run(directory, "output", "-json", "-no-color");
        if (output.exitCode() != 0) {
            throw new AssertionError("terraform output failed (" + output.exitCode() + "): " + output.output());
        }
        Map<String, String> values = new TreeMap<>();
        for (Map.Entry<String, JsonNode> named : JSON.readTree(output.output()).properties()) {
            values.put(named.getKey(), named.getValue().get("value").asText());
        }
        return values;
    }
}
