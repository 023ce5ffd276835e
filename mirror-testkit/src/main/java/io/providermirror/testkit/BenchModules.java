package io.providermirror.testkit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The module registry ({@code modules.v1}) of {@link BenchOrigin}: every module {@code acme/<name>/<system>} is
 * published at version 1.0.0, its download answers {@code 204} with an {@code X-Terraform-Get} naming a
 * {@code .tar.gz} on the origin itself, and that archive is a small module whose bytes depend only on its address
 * ({@link ModuleArchives#tarGz}), so every run and every server serves the same bytes.
 */
final class BenchModules {

    /** Where the origin's discovery document says the module registry is. */
    static final String BASE_PATH = "/v1/modules/";

    private static final String NAMESPACE = "acme";
    private static final String VERSION = "1.0.0";
    private static final String NAME = "[a-z][a-z0-9-]{0,63}";
    private static final Pattern API = Pattern.compile(Pattern.quote(BASE_PATH) + NAMESPACE + "/(" + NAME + ")/(" + NAME
            + ")/(versions|" + Pattern.quote(VERSION) + "/download)");
    private static final Pattern ARCHIVE = Pattern.compile("/module-archives/" + NAMESPACE + "/(" + NAME + ")/(" + NAME
            + ")/" + Pattern.quote(VERSION) + "\\.tar\\.gz");

    /** An answer of the module registry: a status, a JSON body (empty for none) and an X-Terraform-Get. */
    record Answer(int status, String contentType, byte[] body, Optional<String> terraformGet) {}

    private final URI origin;
    private final Map<String, byte[]> archives = new ConcurrentHashMap<>();

    /** @param origin the origin's own base URL ({@code https://127.0.0.1:<port>/}), which downloads name */
    BenchModules(URI origin) {
        this.origin = origin;
    }

    /** The answer to {@code path}, or empty when it is not a module registry path of this origin. */
    Optional<Answer> answer(String path) {
        Matcher api = API.matcher(path);
        if (api.matches()) {
            String name = api.group(1);
            String system = api.group(2);
            if (api.group(3).equals("versions")) {
                ObjectNode root = JsonNodeFactory.instance.objectNode();
                root.putArray("modules")
                        .addObject()
                        .putArray("versions")
                        .addObject()
                        .put("version", VERSION);
                return Optional.of(new Answer(
                        200, "application/json", root.toString().getBytes(StandardCharsets.UTF_8), Optional.empty()));
            }
            return Optional.of(new Answer(
                    204, "", new byte[0], Optional.of(archiveUrl(name, system).toString())));
        }
        Matcher archive = ARCHIVE.matcher(path);
        if (archive.matches()) {
            String module = archive.group(1) + "/" + archive.group(2);
            byte[] bytes = archives.computeIfAbsent(module, m -> archiveOf(archive.group(1), archive.group(2)));
            return Optional.of(new Answer(200, "application/gzip", bytes, Optional.empty()));
        }
        return Optional.empty();
    }

    /** The URL of a module's archive on the origin, as its download names it. */
    URI archiveUrl(String name, String system) {
        return origin.resolve("/module-archives/" + NAMESPACE + "/" + name + "/" + system + "/" + VERSION + ".tar.gz");
    }

    /** The files of module {@code acme/name/system}: a small module with a variable, a resource and an output. */
    static Map<String, String> files(String name, String system) {
        Map<String, String> files = new TreeMap<>();
        files.put(
                "README.md",
                "# " + NAMESPACE + "/" + name + "/" + system + "\n\nA module the bench origin publishes.\n");
        files.put(
                "main.tf",
                "terraform {\n  required_version = \">= 1.0\"\n}\n\n"
                        + "resource \"terraform_data\" \"" + name.replace('-', '_') + "\" {\n"
                        + "  input = var.greeting\n}\n");
        files.put(
                "variables.tf",
                "variable \"greeting\" {\n  type    = string\n  default = \"hello from " + system + "\"\n}\n");
        files.put(
                "outputs.tf",
                "output \"greeting\" {\n  value = terraform_data." + name.replace('-', '_') + ".output\n}\n");
        return files;
    }

    private static byte[] archiveOf(String name, String system) {
        return ModuleArchives.tarGz(files(name, system));
    }
}
