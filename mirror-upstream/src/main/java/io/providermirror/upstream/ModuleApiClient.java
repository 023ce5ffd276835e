package io.providermirror.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.providermirror.model.Urls;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The full module registry API beside the protocol, towards one origin's {@code modules.v1} base URL: lists,
 * search, a module's latest version and a version's details. Every answer is read by {@link OriginJson} (refused
 * when the CLI's decoder would read it differently) and handed back as a tree the caller reads field by field; a
 * {@code 404} is {@link OriginException.Reason#NOT_FOUND} (the module does not exist, or the origin implements only
 * the protocol). The host's token goes only to the registry's own authority, as for {@link ModuleRegistryClient}.
 */
public final class ModuleApiClient {

    private final OriginHttpClient http;
    private final OriginCredentials credentials;

    public ModuleApiClient(OriginHttpClient http, OriginCredentials credentials) {
        this.http = http;
        this.credentials = credentials;
    }

    /**
     * {@code GET <modulesBase><path>?<query>}: a JSON object.
     *
     * @param hostname the origin host the request is made for (its token, its allowed destinations)
     * @param path     relative to the base, e.g. {@code ""}, {@code "search"}, {@code "corp/net/aws/1.0.0"}; its
     *                 segments are names the mirror validated, so it needs no escaping
     * @param query    parameters in the order they are sent; values are escaped here
     * @param what     how to name the request in errors
     */
    public JsonNode get(URI modulesBase, String hostname, String path, Map<String, String> query, String what) {
        URI url = URI.create((path.isEmpty() ? modulesBase : modulesBase.resolve(path)) + queryString(query));
        OriginHttpClient.Document document = http.getDocument(
                hostname,
                url,
                what,
                OriginObserver.Operation.MODULE_API,
                credentials.tokenFor(hostname).orElse(null));
        if (document.status() == 404) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    what + ": " + Urls.redacted(url) + " answered 404 (no such module, or the origin implements only "
                            + "the module registry protocol)");
        }
        if (document.status() != 200) {
            throw OriginHttpClient.statusError(document.finalUri(), document.status(), what);
        }
        String from = what + " from " + Urls.redacted(document.finalUri());
        JsonNode root = OriginJson.read(document.body(), from);
        if (!root.isObject()) {
            throw new OriginException(OriginException.Reason.BAD_RESPONSE, from + " is not a JSON object");
        }
        return root;
    }

    private static String queryString(Map<String, String> query) {
        if (query.isEmpty()) {
            return "";
        }
        StringJoiner joined = new StringJoiner("&", "?", "");
        query.forEach((name, value) -> joined.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return joined.toString();
    }
}
