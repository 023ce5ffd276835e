package io.providermirror.server.http;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The operator API's paths, below {@code /api/v1/}: {@code POST /api/v1/imports} (the body is a bundle as
 * {@code export} writes it) and {@code POST /api/v1/modules/<hostname>/<namespace>/<name>/<system>/<version>/accept}
 * (as {@code modules accept}); {@code DELETE /api/v1/providers/<hostname>/<namespace>/<type>[/<version>]} (a purge,
 * optionally {@code ?platform=os_arch}, repeated) and {@code DELETE /api/v1/modules/.../<system>/<version>}; every
 * segment validated as the mirror's other routes validate it.
 */
final class OperatorRoutes {

    /** Where the operator API lives; a later, incompatible version would live beside it. */
    static final String PREFIX = "/api/v1/";

    static final String IMPORTS = PREFIX + "imports";
    static final String MODULES = PREFIX + "modules/";
    static final String PROVIDERS = PREFIX + "providers/";

    private static final String SHAPE = "expected POST " + IMPORTS + ", POST " + MODULES
            + "<hostname>/<namespace>/<name>/<system>/<version>/accept, DELETE " + MODULES
            + "<hostname>/<namespace>/<name>/<system>/<version> or DELETE " + PROVIDERS
            + "<hostname>/<namespace>/<type>[/<version>][?platform=<os>_<arch>]";

    /** What an operator request asks for. */
    sealed interface OperatorRoute {}

    /** {@code POST /api/v1/imports}: bring the bundle in the body into the cache. */
    record Import() implements OperatorRoute {}

    /** {@code POST /api/v1/modules/.../<version>/accept}: release the pin of a module version. */
    record Accept(ModuleAddress address, ProviderVersion version) implements OperatorRoute {}

    /** {@code DELETE /api/v1/providers/...}: purge a provider, a version (null: every version), some platforms. */
    record PurgeProvider(ProviderAddress address, ProviderVersion version, Set<Platform> platforms)
            implements OperatorRoute {}

    /** {@code DELETE /api/v1/modules/.../<version>}: purge a module version. */
    record PurgeModule(ModuleAddress address, ProviderVersion version) implements OperatorRoute {}

    /** A path or method the API does not answer: the status and why. */
    record Invalid(int status, String message) implements OperatorRoute {}

    /** The method a route answers, for a 405's {@code Allow}. */
    static HttpMethod methodOf(OperatorRoute route) {
        return route instanceof PurgeProvider || route instanceof PurgeModule ? HttpMethod.DELETE : HttpMethod.POST;
    }

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
        OperatorRoute route = route(rawPath, method, decoder.parameters());
        if (!(route instanceof Invalid) && !methodOf(route).equals(method)) {
            return new Invalid(
                    405, "method " + method + " is not allowed on " + rawPath + "; it answers " + methodOf(route));
        }
        return route;
    }

    private static OperatorRoute route(String rawPath, HttpMethod method, Map<String, List<String>> query) {
        if (rawPath.equals(IMPORTS)) {
            return new Import();
        }
        if (rawPath.startsWith(PROVIDERS)) {
            return provider(rawPath.substring(PROVIDERS.length()).split("/", -1), query);
        }
        if (!rawPath.startsWith(MODULES)) {
            return new Invalid(404, "nothing is served at " + rawPath + ": " + SHAPE);
        }
        String[] segments = rawPath.substring(MODULES.length()).split("/", -1);
        boolean accept = segments.length == 6 && segments[5].equals("accept");
        boolean purge = segments.length == 5 && HttpMethod.DELETE.equals(method);
        if (!accept && !purge) {
            return new Invalid(400, "malformed operator path: " + SHAPE);
        }
        Invalid host = hostname(segments[0]);
        if (host != null) {
            return host;
        }
        ModuleAddress address;
        try {
            address = new ModuleAddress(segments[0], segments[1], segments[2], segments[3]);
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed module address: " + e.getMessage());
        }
        Optional<ProviderVersion> version = version(segments[4]);
        if (version.isEmpty()) {
            return badVersion("module", segments[4]);
        }
        return accept ? new Accept(address, version.get()) : new PurgeModule(address, version.get());
    }

    private static OperatorRoute provider(String[] segments, Map<String, List<String>> query) {
        if (segments.length != 3 && segments.length != 4) {
            return new Invalid(400, "malformed operator path: " + SHAPE);
        }
        Invalid host = hostname(segments[0]);
        if (host != null) {
            return host;
        }
        ProviderAddress address;
        try {
            address = new ProviderAddress(segments[0], segments[1], segments[2]);
        } catch (IllegalArgumentException e) {
            return new Invalid(400, "malformed provider address: " + e.getMessage());
        }
        ProviderVersion version = null;
        if (segments.length == 4) {
            Optional<ProviderVersion> parsed = version(segments[3]);
            if (parsed.isEmpty()) {
                return badVersion("provider", segments[3]);
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

    private static Invalid hostname(String hostname) {
        return ProviderAddress.isValidHostname(hostname)
                ? null
                : new Invalid(
                        400,
                        "malformed hostname '" + hostname
                                + "': expected a lowercase DNS name in punycode, optionally with :port");
    }

    private static Optional<ProviderVersion> version(String text) {
        Optional<ProviderVersion> version = ProviderVersion.parse(text);
        return version.isPresent() && version.get().toString().equals(text) ? version : Optional.empty();
    }

    private static Invalid badVersion(String what, String text) {
        return new Invalid(
                400, "malformed " + what + " version '" + text + "': expected a semantic version such as 1.2.0");
    }
}
