package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.model.Urls;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The module registry protocol towards one origin's {@code modules.v1} base URL: a module's version list and
 * the source address of one version. The host's token goes only to the registry's own authority (the requests
 * are built beneath the base, and {@link OriginHttpClient} drops it on a redirect elsewhere); every destination
 * passes the same checks as provider requests.
 */
public final class ModuleRegistryClient {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleRegistryClient.class);

    /**
     * A module's version list with the exact bytes the origin sent, for caching.
     *
     * @param versions the semantic versions listed, in the origin's order; other entries are left out
     */
    public record FetchedModuleVersions(byte[] body, List<ProviderVersion> versions) {
        public FetchedModuleVersions {
            body = body.clone();
            versions = List.copyOf(versions);
        }

        @Override
        public byte[] body() {
            return body.clone();
        }
    }

    private final OriginHttpClient http;
    private final OriginCredentials credentials;
    private final ModuleApiClient api;

    public ModuleRegistryClient(OriginHttpClient http, OriginCredentials credentials) {
        this.http = http;
        this.credentials = credentials;
        this.api = new ModuleApiClient(http, credentials);
    }

    /** The full module registry API beside the protocol, through the same client and credentials. */
    public ModuleApiClient api() {
        return api;
    }

    private String token(ModuleAddress address) {
        return credentials.tokenFor(address.hostname()).orElse(null);
    }

    /** {@code GET :namespace/:name/:system/versions}. */
    public FetchedModuleVersions versions(URI modulesBase, ModuleAddress address) {
        URI url = modulesBase.resolve(address.registryPath() + "/versions");
        String what = "the version list of module " + address;
        OriginHttpClient.Document document = http.getDocument(
                address.hostname(), url, what, OriginObserver.Operation.MODULE_VERSIONS, token(address));
        if (document.status() == 404) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "module " + address + " does not exist at its origin (" + Urls.redacted(url) + " answered 404)");
        }
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        return parseVersions(document.body(), what + " from " + Urls.redacted(document.finalUri()));
    }

    /**
     * A module version list in the registry's form ({@code {"modules":[{"versions":[{"version":...}]}]}}), as an
     * origin sent it or the cache kept it; {@code from} names it in errors.
     */
    public static FetchedModuleVersions parseVersions(byte[] body, String from) {
        JsonNode modules = OriginJson.member(readJson(body, from), "modules");
        if (!modules.isArray()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, from + " has no \"modules\" array");
        }
        if (modules.isEmpty()) {
            throw new OriginException(OriginException.Reason.NOT_FOUND, from + " lists no module");
        }
        JsonNode entries = OriginJson.member(modules.get(0), "versions");
        if (!entries.isArray()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, from + " has no \"versions\" array");
        }
        List<ProviderVersion> versions = new ArrayList<>();
        for (JsonNode entry : entries) {
            JsonNode version = OriginJson.member(entry, "version");
            Optional<ProviderVersion> parsed =
                    version.isTextual() ? ProviderVersion.parse(version.asText()) : Optional.empty();
            if (parsed.isPresent()) {
                versions.add(parsed.get());
            } else {
                LOG.warn("{}: skipping an entry whose version is not a semantic version", from);
            }
        }
        return new FetchedModuleVersions(body, versions);
    }

    /**
     * {@code versions} in the registry's form ({@code {"modules":[{"versions":[{"version":...}]}]}}), in their order:
     * what {@link #parseVersions} reads.
     */
    public static byte[] versionsDocument(List<ProviderVersion> versions) {
        com.fasterxml.jackson.databind.node.ObjectNode root =
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        com.fasterxml.jackson.databind.node.ArrayNode entries =
                root.putArray("modules").addObject().putArray("versions");
        versions.forEach(version -> entries.addObject().put("version", version.toString()));
        return root.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * {@code GET :namespace/:name/:system/:version/download}: the module's source, from a {@code 204} (or
     * {@code 200}) with {@code X-Terraform-Get}, or a {@code 200} whose JSON body is {@code {"location": ...}};
     * a relative value is resolved against the download URL as the CLI does.
     */
    public ModuleSource download(URI modulesBase, ModuleAddress address, ProviderVersion version) {
        return resolve(modulesBase, address, version).source();
    }

    /** The source of a module version as the origin wrote it ({@code location}) and as the mirror reads it. */
    public record ResolvedSource(String location, ModuleSource source) {}

    /** As {@link #download}, keeping the origin's text of the source too (for sources passed through unchanged). */
    public ResolvedSource resolve(URI modulesBase, ModuleAddress address, ProviderVersion version) {
        URI url = modulesBase.resolve(address.registryPath() + "/" + version + "/download");
        String what = "the download of module " + address + " " + version;
        OriginHttpClient.Document document = http.getDocument(
                address.hostname(), url, what, OriginObserver.Operation.MODULE_DOWNLOAD, token(address));
        if (document.status() == 404) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "module " + address + " " + version + " does not exist at its origin (" + Urls.redacted(url)
                            + " answered 404)");
        }
        if (document.status() != 204 && document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        String from = what + " from " + Urls.redacted(document.finalUri());
        String location = document.terraformGet();
        if (location == null || location.isEmpty()) {
            if (document.status() != 200) {
                throw new OriginException(
                        OriginException.Reason.BAD_RESPONSE, from + " answered 204 without X-Terraform-Get");
            }
            JsonNode value = OriginJson.member(readJson(document.body(), from), "location");
            if (!value.isTextual() || value.asText().isEmpty()) {
                throw new OriginException(
                        OriginException.Reason.BAD_RESPONSE,
                        from + " has neither an X-Terraform-Get header nor a \"location\" string");
            }
            location = value.asText();
        }
        try {
            return new ResolvedSource(location, ModuleSource.fromRegistry(location, url));
        } catch (IllegalArgumentException e) {
            throw new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    from + ": the module source is unusable: " + e.getMessage(),
                    e);
        }
    }

    /**
     * Opens the https archive a download named ({@code source}); the host's token goes with it only when the
     * registry itself ({@code modulesBase}'s authority) serves it, as for its API.
     */
    public OriginHttpClient.ArchiveStream openArchive(
            URI modulesBase, ModuleAddress address, ProviderVersion version, ModuleSource source) {
        String token = OriginHttpClient.sameAuthority(source.url(), modulesBase) ? token(address) : null;
        return http.openArchive(
                address.hostname(), source.url(), "the archive of module " + address + " " + version, token);
    }

    private static JsonNode readJson(byte[] body, String from) {
        JsonNode root = OriginJson.read(body, from);
        if (!root.isObject()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, from + " is not a JSON object");
        }
        return root;
    }
}
