package io.providermirror.server.http;

import io.netty.handler.codec.http.HttpMethod;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.inventory.InventoryQuery;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator API's paths, below {@code /api/v1/}: {@code POST /api/v1/imports} (the body is a bundle as
 * {@code export} writes it), {@code POST /api/v1/modules/<hostname>/<namespace>/<name>/<system>/<version>/accept}
 * (as {@code modules accept}) and {@code GET /api/v1/inventory} (the usage inventory, filtered by its query); every
 * segment and parameter validated as the mirror's other routes validate theirs.
 */
final class OperatorRoutes {

    /** Where the operator API lives; a later, incompatible version would live beside it. */
    static final String PREFIX = "/api/v1/";

    static final String IMPORTS = PREFIX + "imports";
    static final String MODULES = PREFIX + "modules/";
    static final String INVENTORY = PREFIX + "inventory";

    private static final String SHAPE = "expected POST " + IMPORTS + ", POST " + MODULES
            + "<hostname>/<namespace>/<name>/<system>/<version>/accept or GET " + INVENTORY;

    /** What an operator request asks for. */
    sealed interface OperatorRoute {}

    /** {@code POST /api/v1/imports}: bring the bundle in the body into the cache. */
    record Import() implements OperatorRoute {}

    /** {@code POST /api/v1/modules/.../<version>/accept}: release the pin of a module version. */
    record Accept(ModuleAddress address, ProviderVersion version) implements OperatorRoute {}

    /** {@code GET /api/v1/inventory}: the usage inventory, the items {@code query} selects. */
    record Inventory(InventoryQuery query) implements OperatorRoute {}

    /** A path or method the API does not answer: the status and why. */
    record Invalid(int status, String message) implements OperatorRoute {}

    private OperatorRoutes() {}

    /** True for every path below {@code /api/}: the operator API answers them all, refusals included. */
    static boolean isOperatorPath(String uri) {
        return uri.equals("/api") || uri.startsWith("/api/") || uri.startsWith("/api?");
    }

    static OperatorRoute parse(HttpMethod method, String rawPath) {
        return parse(method, rawPath, Map.of());
    }

    /** The route of {@code method} on {@code rawPath}, with the query's {@code parameters} (decoded). */
    static OperatorRoute parse(HttpMethod method, String rawPath, Map<String, List<String>> parameters) {
        Route.Invalid malformed = RouteParser.malformedPath(rawPath);
        if (malformed != null) {
            return new Invalid(malformed.status(), malformed.message());
        }
        if (rawPath.equals(INVENTORY)) {
            if (!HttpMethod.GET.equals(method)) {
                return new Invalid(405, "method " + method + " is not allowed on " + rawPath + "; it answers GET");
            }
            try {
                return new Inventory(InventoryQuery.parse(parameters));
            } catch (IllegalArgumentException e) {
                return new Invalid(400, "malformed inventory query: " + e.getMessage());
            }
        }
        OperatorRoute route = route(rawPath);
        if (!(route instanceof Invalid) && !HttpMethod.POST.equals(method)) {
            return new Invalid(405, "method " + method + " is not allowed on " + rawPath + "; it answers POST");
        }
        return route;
    }

    private static OperatorRoute route(String rawPath) {
        if (rawPath.equals(IMPORTS)) {
            return new Import();
        }
        if (!rawPath.startsWith(MODULES)) {
            return new Invalid(404, "nothing is served at " + rawPath + ": " + SHAPE);
        }
        String[] segments = rawPath.substring(MODULES.length()).split("/", -1);
        if (segments.length != 6 || !segments[5].equals("accept")) {
            return new Invalid(400, "malformed operator path: " + SHAPE);
        }
        if (!ProviderAddress.isValidHostname(segments[0])) {
            return new Invalid(
                    400,
                    "malformed hostname '" + segments[0]
                            + "': expected a lowercase DNS name in punycode, optionally with :port");
        }
        ModuleAddress address;
        try {
            address = new ModuleAddress(segments[0], segments[1], segments[2], segments[3]);
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed module address: " + e.getMessage());
        }
        Optional<ProviderVersion> version = ProviderVersion.parse(segments[4]);
        if (version.isEmpty() || !version.get().toString().equals(segments[4])) {
            return new Invalid(
                    400, "malformed module version '" + segments[4] + "': expected a semantic version such as 1.2.0");
        }
        return new Accept(address, version.get());
    }
}
