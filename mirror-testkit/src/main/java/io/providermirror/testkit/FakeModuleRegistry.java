package io.providermirror.testkit;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The module registry ({@code modules.v1}) of a {@link FakeOrigin}: the origin's discovery document already names
 * {@code /v1/modules/}; this publishes module versions there whose download answers {@code 204} with whatever
 * {@code X-Terraform-Get} a test gives (absolute, relative, with {@code //subdir}, {@code git::https://...}), and
 * serves module archives on the same origin. It counts what reached the origin, so a test can assert that a
 * cached module made no origin request.
 */
public final class FakeModuleRegistry {

    /** Where the origin's discovery document says the module registry is. */
    public static final String BASE_PATH = "/v1/modules/";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FakeOrigin origin;
    private final Map<String, List<String>> versionsByModule = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, ModuleRegistryApi.Description> descriptions =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, String> publishedAt = new java.util.concurrent.ConcurrentHashMap<>();

    private FakeModuleRegistry(FakeOrigin origin) {
        this.origin = origin;
    }

    /** The module registry of {@code origin}: the module registry protocol only (everything else answers 404). */
    public static FakeModuleRegistry of(FakeOrigin origin) {
        return new FakeModuleRegistry(origin);
    }

    /**
     * The module registry of {@code origin} with the full HTTP API of the public registry besides the protocol: lists
     * (all, one namespace; {@code offset}, {@code limit}, {@code provider}, {@code verified}), search ({@code q}
     * over names and descriptions), the latest version for every system and for one, and a version's details, from
     * what was published and described. Its answers carry fields the mirror does not pass on, and {@code source}s on
     * the origin.
     */
    public static FakeModuleRegistry withFullApi(FakeOrigin origin) {
        FakeModuleRegistry registry = new FakeModuleRegistry(origin);
        ModuleRegistryApi api = new ModuleRegistryApi(registry);
        origin.answerDynamically(get(urlPathMatching(Pattern.quote(BASE_PATH) + ".*")), 9, api::answer);
        return registry;
    }

    /** Describes a module: its description and verified mark, as the full API tells them. */
    public void describe(String namespace, String name, String system, String description, boolean verified) {
        descriptions.put(
                namespace + "/" + name + "/" + system, new ModuleRegistryApi.Description(description, verified));
    }

    /** Says when a version was published ({@code published_at}, RFC 3339), as the full API tells it. */
    public void publishedAt(String namespace, String name, String system, String version, String at) {
        publishedAt.put(namespace + "/" + name + "/" + system + "/" + version, at);
    }

    /** Every published module ({@code namespace/name/system}) with its versions, in the order published. */
    Map<String, List<String>> modules() {
        return versionsByModule;
    }

    ModuleRegistryApi.Description description(String module) {
        return descriptions.getOrDefault(module, new ModuleRegistryApi.Description("", false));
    }

    String publishedAt(String moduleVersion) {
        return publishedAt.get(moduleVersion);
    }

    /**
     * Publishes {@code namespace/name/system} at {@code version}: it joins the module's version list, and its
     * download answers {@code 204} with {@code X-Terraform-Get: xTerraformGet} exactly as given.
     */
    public void publish(String namespace, String name, String system, String version, String xTerraformGet) {
        String module = namespace + "/" + name + "/" + system;
        List<String> versions =
                versionsByModule.computeIfAbsent(module, m -> new java.util.concurrent.CopyOnWriteArrayList<>());
        if (!versions.contains(version)) {
            versions.add(version);
        }
        server().stubFor(get(urlEqualTo(downloadPath(namespace, name, system, version)))
                .willReturn(aResponse().withStatus(204).withHeader("X-Terraform-Get", xTerraformGet)));
        ObjectNode root = JSON.createObjectNode();
        ArrayNode listed = root.putArray("modules").addObject().putArray("versions");
        versions.forEach(v -> listed.addObject().put("version", v));
        server().stubFor(get(urlEqualTo(BASE_PATH + module + "/versions"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody(root.toString())));
    }

    /** The path of a version's download endpoint on the origin. */
    public static String downloadPath(String namespace, String name, String system, String version) {
        return BASE_PATH + namespace + "/" + name + "/" + system + "/" + version + "/download";
    }

    /** Serves {@code bytes} at {@code path} (starting with {@code /}) on the origin; returns its absolute URL. */
    public URI serveArchive(String path, byte[] bytes) {
        server().stubFor(get(urlEqualTo(path))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/octet-stream")
                        .withHeader("Content-Length", String.valueOf(bytes.length))
                        .withBody(bytes)));
        return archiveUrl(path);
    }

    /** The absolute URL of {@code path} on the origin, for an {@code X-Terraform-Get} value. */
    public URI archiveUrl(String path) {
        return origin.discoveryUrl().resolve(path);
    }

    /** How many requests reached the module registry API (version lists and downloads). */
    public int registryRequests() {
        return origin.requestsMatching(BASE_PATH + ".*");
    }

    /** How many times the archive at {@code path} was fetched. */
    public int archiveDownloads(String path) {
        return server().countRequestsMatching(
                        getRequestedFor(urlPathMatching(Pattern.quote(path))).build())
                .getCount();
    }

    /** How many requests of any kind reached the origin. */
    public int originRequests() {
        return server().countRequestsMatching(anyRequestedFor(anyUrl()).build()).getCount();
    }

    private WireMockServer server() {
        return origin.wireMock();
    }
}
