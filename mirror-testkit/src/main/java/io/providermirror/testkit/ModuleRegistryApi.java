package io.providermirror.testkit;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.http.QueryParameter;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The full HTTP API of the public module registry over a {@link FakeModuleRegistry}'s modules, computed per request:
 * what {@link FakeModuleRegistry#withFullApi} installs. Answers carry fields a mirror must not pass on
 * ({@code provider_logo_url}, {@code tags}) and {@code source}s on a code host.
 */
final class ModuleRegistryApi {

    /** A module's description and verified mark. */
    record Description(String description, boolean verified) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DEFAULT_LIMIT = 15;

    private final FakeModuleRegistry registry;

    ModuleRegistryApi(FakeModuleRegistry registry) {
        this.registry = registry;
    }

    ResponseDefinition answer(Request request) {
        String path = URI.create(request.getUrl()).getRawPath().substring(FakeModuleRegistry.BASE_PATH.length());
        String[] segments = path.split("/", -1);
        if (path.isEmpty()) {
            return list(request, path, module -> true);
        }
        if (segments.length == 1 && segments[0].equals("search")) {
            String q = parameter(request, "q").orElse("").toLowerCase(Locale.ROOT);
            Optional<String> namespace = parameter(request, "namespace");
            return list(
                    request,
                    path,
                    module -> namespace.map(ns -> module.startsWith(ns + "/")).orElse(true)
                            && Arrays.stream(q.split("\\s+"))
                                    .allMatch(word -> (module + " "
                                                    + registry.description(module)
                                                            .description())
                                            .toLowerCase(Locale.ROOT)
                                            .contains(word)));
        }
        if (segments.length == 1) {
            return list(request, path, module -> module.startsWith(segments[0] + "/"));
        }
        if (segments.length == 2) {
            return list(request, path, module -> module.startsWith(segments[0] + "/" + segments[1] + "/"));
        }
        if (segments.length == 3 || segments.length == 4) {
            String module = segments[0] + "/" + segments[1] + "/" + segments[2];
            List<String> versions = registry.modules().get(module);
            if (versions == null) {
                return notFound();
            }
            String version = segments.length == 3 ? latest(versions) : segments[3];
            return versions.contains(version) ? json(details(module, version, versions)) : notFound();
        }
        return notFound();
    }

    private ResponseDefinition list(Request request, String path, java.util.function.Predicate<String> selects) {
        Optional<String> provider = parameter(request, "provider");
        boolean verifiedOnly =
                parameter(request, "verified").map("true"::equals).orElse(false);
        List<String> matching = new ArrayList<>();
        registry.modules().keySet().stream().sorted().forEach(module -> {
            if (selects.test(module)
                    && provider.map(p -> module.endsWith("/" + p)).orElse(true)
                    && (!verifiedOnly || registry.description(module).verified())) {
                matching.add(module);
            }
        });
        int offset = parameter(request, "offset").map(Integer::parseInt).orElse(0);
        int limit = parameter(request, "limit").map(Integer::parseInt).orElse(DEFAULT_LIMIT);
        ObjectNode root = JSON.createObjectNode();
        ObjectNode meta = root.putObject("meta").put("limit", limit).put("current_offset", offset);
        if (offset + limit < matching.size()) {
            meta.put("next_offset", offset + limit)
                    .put(
                            "next_url",
                            FakeModuleRegistry.BASE_PATH + path + "?limit=" + limit + "&offset=" + (offset + limit));
        }
        if (offset > 0) {
            meta.put("prev_offset", Math.max(0, offset - limit));
        }
        ArrayNode modules = root.putArray("modules");
        matching.stream().skip(offset).limit(limit).forEach(module -> {
            List<String> versions = registry.modules().get(module);
            modules.add(summary(module, latest(versions)));
        });
        return json(root);
    }

    private ObjectNode summary(String module, String version) {
        String[] parts = module.split("/");
        Description description = registry.description(module);
        ObjectNode node = JSON.createObjectNode()
                .put("id", module + "/" + version)
                .put("owner", "owner-of-" + parts[0])
                .put("namespace", parts[0])
                .put("name", parts[1])
                .put("version", version)
                .put("provider", parts[2])
                .put("provider_logo_url", "/images/providers/" + parts[2] + ".png")
                .put("description", description.description())
                .put("source", "https://code.example.test/" + parts[0] + "/terraform-" + parts[2] + "-" + parts[1])
                .put("downloads", 42)
                .put("verified", description.verified());
        String published = registry.publishedAt(module + "/" + version);
        if (published != null) {
            node.put("published_at", published);
        }
        node.putArray("tags").add("injected");
        return node;
    }

    private ObjectNode details(String module, String version, List<String> versions) {
        ObjectNode node = summary(module, version);
        ObjectNode root = node.putObject("root")
                .put("path", "")
                .put("readme", "# " + module)
                .put("empty", false)
                .put("injected", "not passed on");
        root.putArray("inputs")
                .addObject()
                .put("name", "cidr")
                .put("type", "string")
                .put("description", "The network's range")
                .put("default", "\"10.0.0.0/16\"")
                .put("required", false);
        root.putArray("outputs").addObject().put("name", "id").put("description", "The network's id");
        root.putArray("dependencies");
        root.putArray("provider_dependencies")
                .addObject()
                .put("name", module.split("/")[2])
                .put("namespace", "hashicorp")
                .put("source", "hashicorp/" + module.split("/")[2])
                .put("version", ">= 1.0");
        root.putArray("resources").addObject().put("name", "this").put("type", "null_resource");
        ObjectNode submodule = node.putArray("submodules").addObject().put("path", "modules/inner");
        submodule.putArray("inputs");
        node.putArray("providers").add(module.split("/")[2]);
        ArrayNode listed = node.putArray("versions");
        versions.forEach(listed::add);
        return node;
    }

    private static String latest(List<String> versions) {
        return versions.stream()
                .max(Comparator.comparing(ModuleRegistryApi::numbers, Arrays::compare))
                .orElseThrow();
    }

    private static int[] numbers(String version) {
        return Arrays.stream(version.split("[-+]")[0].split("\\."))
                .mapToInt(Integer::parseInt)
                .toArray();
    }

    private static Optional<String> parameter(Request request, String name) {
        QueryParameter parameter = request.queryParameter(name);
        return parameter.isPresent() ? Optional.of(parameter.firstValue()) : Optional.empty();
    }

    private static ResponseDefinition json(ObjectNode body) {
        return aResponse()
                .withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody(body.toString())
                .build();
    }

    private static ResponseDefinition notFound() {
        return aResponse()
                .withStatus(404)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"errors\":[\"Not Found\"]}")
                .build();
    }
}
