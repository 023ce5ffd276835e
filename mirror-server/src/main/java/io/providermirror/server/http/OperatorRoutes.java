package io.providermirror.server.http;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.inventory.InventoryQuery;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The operator API's paths, below {@code /api/v1/}: one table ({@link #ROUTES}) of method and path template, which
 * is what the API answers and what its OpenAPI description ({@code openapi.yaml}, served at {@code
 * /api/v1/openapi.yaml}) must describe, path for path; every segment validated as the mirror's other routes
 * validate it.
 */
final class OperatorRoutes {

    /** Where the operator API lives; a later, incompatible version would live beside it. */
    static final String PREFIX = "/api/v1/";

    static final String IMPORTS = PREFIX + "imports";
    static final String MODULES = PREFIX + "modules/";
    static final String PROVIDERS = PREFIX + "providers/";

    /** The OpenAPI description of this API, in the jar. */
    static final String DESCRIPTION_RESOURCE = "/io/providermirror/server/http/openapi.yaml";

    static final String INVENTORY = PREFIX + "inventory";

    /** What an operator request asks for. */
    sealed interface OperatorRoute {}

    /** {@code POST /api/v1/imports}: bring the bundle in the body into the cache. */
    record Import() implements OperatorRoute {}

    /** {@code POST /api/v1/modules/.../<version>/accept}: release the pin of a module version. */
    record Accept(ModuleAddress address, ProviderVersion version) implements OperatorRoute {}

    /** {@code GET /api/v1/status}: the mirror's status, as the status page shows it. */
    record Status() implements OperatorRoute {}

    /** {@code GET /api/v1/status/providers/<hostname>/<namespace>/<type>}: one provider's cached versions. */
    record ProviderStatus(ProviderAddress address) implements OperatorRoute {}

    /** {@code DELETE /api/v1/providers/...}: purge a provider, a version (null: every version), some platforms. */
    record PurgeProvider(ProviderAddress address, ProviderVersion version, Set<Platform> platforms)
            implements OperatorRoute {}

    /** {@code DELETE /api/v1/modules/.../<version>}: purge a module version. */
    record PurgeModule(ModuleAddress address, ProviderVersion version) implements OperatorRoute {}

    /** {@code GET /api/v1/clients}: the configured clients, their scopes and when each was last seen. */
    record Clients() implements OperatorRoute {}

    /** {@code GET /api/v1/openapi.yaml}: this API's OpenAPI description. */
    record Description() implements OperatorRoute {}

    /** {@code GET /api/v1/inventory}: the usage inventory, the items {@code query} selects. */
    record Inventory(InventoryQuery query) implements OperatorRoute {}

    /** A path or method the API does not answer: the status and why. */
    record Invalid(int status, String message) implements OperatorRoute {}

    /**
     * One route: its method, its path as the OpenAPI description writes it (a {@code {name}} segment stands for
     * one path segment), and the route a matching path is, given its {@code {name}} segments in order and the
     * query's parameters (an {@link Invalid} when one is malformed).
     */
    record Template(
            HttpMethod method, String path, BiFunction<List<String>, Map<String, List<String>>, OperatorRoute> route) {

        /** The {@code {name}} segments of {@code rawPath} when it has this template's shape, else empty. */
        Optional<List<String>> match(String rawPath) {
            String[] expected = path.split("/", -1);
            String[] actual = rawPath.split("/", -1);
            if (expected.length != actual.length) {
                return Optional.empty();
            }
            List<String> parameters = new ArrayList<>();
            for (int i = 0; i < expected.length; i++) {
                if (expected[i].startsWith("{") && expected[i].endsWith("}")) {
                    if (actual[i].isEmpty()) {
                        return Optional.empty();
                    }
                    parameters.add(actual[i]);
                } else if (!expected[i].equals(actual[i])) {
                    return Optional.empty();
                }
            }
            return Optional.of(parameters);
        }

        /** The path up to its first {@code {name}} segment: a path that starts so but does not match is malformed. */
        String fixedPrefix() {
            int brace = path.indexOf('{');
            return brace < 0 ? path : path.substring(0, brace);
        }
    }

    /** Every route of the operator API. */
    static final List<Template> ROUTES = List.of(
            new Template(HttpMethod.POST, IMPORTS, (parameters, query) -> new Import()),
            new Template(
                    HttpMethod.POST,
                    MODULES + "{hostname}/{namespace}/{name}/{system}/{version}/accept",
                    (parameters, query) -> accept(parameters)),
            new Template(
                    HttpMethod.DELETE,
                    MODULES + "{hostname}/{namespace}/{name}/{system}/{version}",
                    (parameters, query) -> purgeModule(parameters)),
            new Template(HttpMethod.DELETE, PROVIDERS + "{hostname}/{namespace}/{type}", OperatorRoutes::purgeProvider),
            new Template(
                    HttpMethod.DELETE,
                    PROVIDERS + "{hostname}/{namespace}/{type}/{version}",
                    OperatorRoutes::purgeProvider),
            new Template(HttpMethod.GET, PREFIX + "status", (parameters, query) -> new Status()),
            new Template(
                    HttpMethod.GET,
                    PREFIX + "status/providers/{hostname}/{namespace}/{type}",
                    (parameters, query) -> providerStatus(parameters)),
            new Template(HttpMethod.GET, PREFIX + "clients", (parameters, query) -> new Clients()),
            new Template(HttpMethod.GET, INVENTORY, (parameters, query) -> inventory(query)),
            new Template(HttpMethod.GET, PREFIX + "openapi.yaml", (parameters, query) -> new Description()));

    private static final String SHAPE = "expected "
            + ROUTES.stream().map(t -> t.method() + " " + t.path()).collect(Collectors.joining(", "))
            + " (see " + PREFIX + "openapi.yaml)";

    private OperatorRoutes() {}

    /** True for every path below {@code /api/}: the operator API answers them all, refusals included. */
    static boolean isOperatorPath(String uri) {
        return uri.equals("/api") || uri.startsWith("/api/") || uri.startsWith("/api?");
    }

    /** The route of {@code uri} (path and query) for {@code method}. */
    static OperatorRoute parse(HttpMethod method, String uri) {
        QueryStringDecoder decoder = new QueryStringDecoder(uri);
        String rawPath = decoder.rawPath();
        Route.Invalid malformed = RouteParser.malformedPath(rawPath);
        if (malformed != null) {
            return new Invalid(malformed.status(), malformed.message());
        }
        List<Template> matching = new ArrayList<>();
        for (Template template : ROUTES) {
            Optional<List<String>> parameters = template.match(rawPath);
            if (parameters.isPresent()) {
                if (template.method().equals(method)) {
                    return template.route().apply(parameters.get(), decoder.parameters());
                }
                matching.add(template);
            }
        }
        if (!matching.isEmpty()) {
            return new Invalid(
                    405, "method " + method + " is not allowed on " + rawPath + "; it answers " + allowed(rawPath));
        }
        boolean underARoute =
                ROUTES.stream().anyMatch(t -> !t.fixedPrefix().equals(t.path()) && rawPath.startsWith(t.fixedPrefix()));
        if (underARoute) {
            return new Invalid(400, "malformed operator path: " + SHAPE);
        }
        return new Invalid(404, "nothing is served at " + rawPath + ": " + SHAPE);
    }

    /** The methods {@code rawPath} answers, for an {@code Allow} header (comma-separated). */
    static String allowed(String rawPath) {
        return ROUTES.stream()
                .filter(t -> t.match(rawPath).isPresent())
                .map(t -> t.method().name())
                .distinct()
                .collect(Collectors.joining(", "));
    }

    private static OperatorRoute accept(List<String> segments) {
        return moduleVersion(segments, Accept::new);
    }

    private static OperatorRoute purgeModule(List<String> segments) {
        return moduleVersion(segments, PurgeModule::new);
    }

    private static OperatorRoute moduleVersion(
            List<String> segments, BiFunction<ModuleAddress, ProviderVersion, OperatorRoute> route) {
        Optional<Invalid> hostname = hostname(segments.get(0));
        if (hostname.isPresent()) {
            return hostname.get();
        }
        ModuleAddress address;
        try {
            address = new ModuleAddress(segments.get(0), segments.get(1), segments.get(2), segments.get(3));
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed module address: " + e.getMessage());
        }
        Optional<ProviderVersion> version = ProviderVersion.parse(segments.get(4));
        if (version.isEmpty() || !version.get().toString().equals(segments.get(4))) {
            return new Invalid(
                    400,
                    "malformed module version '" + segments.get(4) + "': expected a semantic version such as 1.2.0");
        }
        return route.apply(address, version.get());
    }

    private static OperatorRoute inventory(Map<String, List<String>> query) {
        try {
            return new Inventory(InventoryQuery.parse(query));
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed inventory query: " + e.getMessage());
        }
    }

    private static OperatorRoute purgeProvider(List<String> segments, Map<String, List<String>> query) {
        Optional<Invalid> hostname = hostname(segments.get(0));
        if (hostname.isPresent()) {
            return hostname.get();
        }
        ProviderAddress address;
        try {
            address = new ProviderAddress(segments.get(0), segments.get(1), segments.get(2));
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed provider address: " + e.getMessage());
        }
        ProviderVersion version = null;
        if (segments.size() == 4) {
            Optional<ProviderVersion> parsed = ProviderVersion.parse(segments.get(3));
            if (parsed.isEmpty() || !parsed.get().toString().equals(segments.get(3))) {
                return new Invalid(
                        400,
                        "malformed provider version '" + segments.get(3)
                                + "': expected a semantic version such as 1.2.0");
            }
            version = parsed.get();
        }
        for (String name : query.keySet()) {
            if (!name.equals("platform")) {
                return new Invalid(400, "unknown query parameter '" + name + "': a purge takes only platform");
            }
        }
        Set<Platform> platforms = new LinkedHashSet<>();
        for (String platform : query.getOrDefault("platform", List.of())) {
            try {
                platforms.add(Platform.parse(platform));
            } catch (IllegalArgumentException e) {
                return new Invalid(
                        400, "malformed platform '" + platform + "': expected <os>_<arch>, e.g. linux_amd64");
            }
        }
        if (!platforms.isEmpty() && version == null) {
            return new Invalid(400, "a platform names the archives of one version: give the version in the path");
        }
        return new PurgeProvider(address, version, Set.copyOf(platforms));
    }

    private static OperatorRoute providerStatus(List<String> segments) {
        Optional<Invalid> hostname = hostname(segments.get(0));
        if (hostname.isPresent()) {
            return hostname.get();
        }
        try {
            return new ProviderStatus(new ProviderAddress(segments.get(0), segments.get(1), segments.get(2)));
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed provider address: " + e.getMessage());
        }
    }

    private static Optional<Invalid> hostname(String hostname) {
        return ProviderAddress.isValidHostname(hostname)
                ? Optional.empty()
                : Optional.of(new Invalid(
                        400,
                        "malformed hostname '" + hostname
                                + "': expected a lowercase DNS name in punycode, optionally with :port"));
    }
}
