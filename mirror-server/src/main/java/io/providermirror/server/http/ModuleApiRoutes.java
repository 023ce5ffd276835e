package io.providermirror.server.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.face.modules.ModuleApiAnswer;
import io.providermirror.server.face.modules.ModuleApiQuery;
import io.providermirror.server.face.modules.ModuleCatalog;
import io.providermirror.server.face.modules.ModuleLinks;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The full module registry API on the mirror, beside the protocol under {@code /registry/<hostname>/modules.v1/}:
 * its paths ({@link Request}), its query parameters (validated: a bad value is a 400 naming it), and its answers,
 * written with {@code X-Mirror-Answer: origin|cache} saying where they came from. The download of a module's latest
 * version is a {@code 302} to the mirror's own download route of that version.
 */
final class ModuleApiRoutes {

    /** The response header that says whether an answer is the origin's (rewritten) or built from the cache. */
    static final String ANSWER_HEADER = "X-Mirror-Answer";

    private static final int MAX_QUERY_TEXT = 200;
    private static final int MAX_NUMBER_DIGITS = 9;

    /** One request of the full API. */
    sealed interface Request {
        /** The request meter's {@code route} tag of this request. */
        String routeName();

        /** The query parameters this request takes. */
        Set<String> parameters();

        /** The registry host asked about. */
        String hostname();
    }

    /** {@code GET <base>} and {@code GET <base>:namespace}. */
    record ListModules(String hostname, Optional<String> namespace) implements Request {
        @Override
        public String routeName() {
            return "module_list";
        }

        @Override
        public Set<String> parameters() {
            return Set.of("offset", "limit", "provider", "verified");
        }
    }

    /** {@code GET <base>search}. */
    record Search(String hostname) implements Request {
        @Override
        public String routeName() {
            return "module_search";
        }

        @Override
        public Set<String> parameters() {
            return Set.of("q", "offset", "limit", "provider", "namespace", "verified");
        }
    }

    /** {@code GET <base>:namespace/:name}: the latest version for every system. */
    record LatestForEverySystem(String hostname, String namespace, String name) implements Request {
        @Override
        public String routeName() {
            return "module_latest";
        }

        @Override
        public Set<String> parameters() {
            return Set.of("offset", "limit");
        }
    }

    /** {@code GET <base>:namespace/:name/:system}: the latest version for one system. */
    record Latest(ModuleAddress address) implements Request {
        @Override
        public String hostname() {
            return address.hostname();
        }

        @Override
        public String routeName() {
            return "module_latest";
        }

        @Override
        public Set<String> parameters() {
            return Set.of();
        }
    }

    /** {@code GET <base>:namespace/:name/:system/:version}: a version's details. */
    record Details(ModuleAddress address, ProviderVersion version) implements Request {
        @Override
        public String hostname() {
            return address.hostname();
        }

        @Override
        public String routeName() {
            return "module_details";
        }

        @Override
        public Set<String> parameters() {
            return Set.of();
        }
    }

    /** {@code GET <base>:namespace/:name/:system/download}: the download of the latest version. */
    record LatestDownload(ModuleAddress address) implements Request {
        @Override
        public String hostname() {
            return address.hostname();
        }

        @Override
        public String routeName() {
            return "module_latest_download";
        }

        @Override
        public Set<String> parameters() {
            return Set.of();
        }
    }

    private ModuleApiRoutes() {}

    /**
     * The full API's route for {@code segments} below {@code hostname}'s base, if they have one of its shapes (an
     * invalid route when a segment is malformed); empty for the protocol's shapes.
     */
    static Optional<Route> parse(String hostname, String[] segments) {
        String host = ProviderAddress.normalizeHostname(hostname);
        if (segments.length == 1 && segments[0].isEmpty()) {
            return Optional.of(new Route.ModuleApi(new ListModules(host, Optional.empty())));
        }
        if (segments.length == 1 && segments[0].equals("search")) {
            return Optional.of(new Route.ModuleApi(new Search(host)));
        }
        if (segments.length == 1 || segments.length == 2) {
            for (String segment : segments) {
                if (!ModuleAddress.isValidName(segment)) {
                    return Optional.of(new Route.Invalid(
                            400,
                            "malformed module namespace or name '" + segment
                                    + "': expected letters, digits, '-' or '_', at most 64 characters"));
                }
            }
            String namespace = segments[0].toLowerCase(Locale.ROOT);
            return Optional.of(new Route.ModuleApi(
                    segments.length == 1
                            ? new ListModules(host, Optional.of(namespace))
                            : new LatestForEverySystem(host, namespace, segments[1].toLowerCase(Locale.ROOT))));
        }
        if (segments.length != 3 && segments.length != 4) {
            return Optional.empty();
        }
        ModuleAddress address;
        try {
            address = new ModuleAddress(hostname, segments[0], segments[1], segments[2]);
        } catch (IllegalArgumentException e) {
            return Optional.of(new Route.Invalid(400, "malformed module address: " + e.getMessage()));
        }
        if (segments.length == 3) {
            return Optional.of(new Route.ModuleApi(new Latest(address)));
        }
        if (segments[3].equals("download")) {
            return Optional.of(new Route.ModuleApi(new LatestDownload(address)));
        }
        Optional<ProviderVersion> version = ProviderVersion.parse(segments[3]);
        if (version.isPresent() && version.get().toString().equals(segments[3])) {
            return Optional.of(new Route.ModuleApi(new Details(address, version.get())));
        }
        // versions, and anything else, is the protocol's to judge.
        return Optional.empty();
    }

    /** The answer to {@code api}: a 400 at once for a bad query parameter or Host header. */
    static CompletableFuture<FullHttpResponse> answer(
            ModuleCatalog catalog, Request api, FullHttpRequest request, boolean head) {
        String host = request.headers().get(HttpHeaderNames.HOST);
        if (!HostAuthority.isValid(host)) {
            return CompletableFuture.completedFuture(JsonErrors.response(
                    HttpResponseStatus.BAD_REQUEST,
                    "the module registry API needs the request's Host header (the mirror's host name and port), to "
                            + "name the mirror's own download routes in its answers",
                    head));
        }
        ModuleApiQuery query;
        try {
            query = query(api, new QueryStringDecoder(request.uri()).parameters());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(
                    JsonErrors.response(HttpResponseStatus.BAD_REQUEST, e.getMessage(), head));
        }
        ModuleLinks links = new ModuleLinks("https://" + host);
        CompletableFuture<ModuleApiAnswer> answer;
        if (api instanceof ListModules list) {
            answer = catalog.list(list.hostname(), list.namespace(), query, links);
        } else if (api instanceof Search search) {
            answer = catalog.search(search.hostname(), query, links);
        } else if (api instanceof LatestForEverySystem every) {
            answer = catalog.latestForEverySystem(every.hostname(), every.namespace(), every.name(), query, links);
        } else if (api instanceof Latest latest) {
            answer = catalog.latest(latest.address(), links);
        } else if (api instanceof Details details) {
            answer = catalog.details(details.address(), details.version(), links);
        } else {
            ModuleAddress address = ((LatestDownload) api).address();
            return catalog.latestVersion(address).thenApply(version -> redirect(address, version));
        }
        return answer.thenApply(done -> {
            FullHttpResponse response = DocumentResponse.of(
                    HttpResponseStatus.OK, "application/json", done.document().json(), head);
            response.headers().set(ANSWER_HEADER, done.source().header());
            return response;
        });
    }

    /** The {@code 302} to the mirror's download route of {@code version}, never the origin's. */
    private static FullHttpResponse redirect(ModuleAddress address, ProviderVersion version) {
        FullHttpResponse response =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.FOUND, Unpooled.EMPTY_BUFFER);
        response.headers()
                .set(HttpHeaderNames.LOCATION, ModuleLinks.downloadPath(address, version))
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setContentLength(response, 0);
        return response;
    }

    /**
     * The parameters of {@code query} that {@code api} takes, validated; others are ignored (and not passed on).
     *
     * @throws IllegalArgumentException naming the parameter and what it should be
     */
    static ModuleApiQuery query(Request api, Map<String, List<String>> query) {
        Set<String> taken = api.parameters();
        Optional<String> q = text(query, taken, "q");
        if (api instanceof Search && q.isEmpty()) {
            throw new IllegalArgumentException("a search needs the query parameter q (the search string)");
        }
        Optional<String> namespace = text(query, taken, "namespace");
        if (namespace.isPresent() && !ModuleAddress.isValidName(namespace.get())) {
            throw new IllegalArgumentException("namespace: '" + namespace.get()
                    + "' is not a module namespace (expected letters, digits, '-' or '_', at most 64 characters)");
        }
        Optional<String> provider = text(query, taken, "provider");
        if (provider.isPresent() && !provider.get().matches("[a-z0-9]{1,64}")) {
            throw new IllegalArgumentException("provider: '" + provider.get()
                    + "' is not a module's target system (expected lowercase letters and digits, such as aws)");
        }
        Optional<String> verified = text(query, taken, "verified");
        if (verified.isPresent()
                && !verified.get().equals("true")
                && !verified.get().equals("false")) {
            throw new IllegalArgumentException("verified: '" + verified.get() + "' (expected true or false)");
        }
        OptionalInt limit = number(query, taken, "limit");
        if (limit.isPresent() && limit.getAsInt() == 0) {
            throw new IllegalArgumentException("limit: 0 (expected a positive integer)");
        }
        return new ModuleApiQuery(
                number(query, taken, "offset"),
                limit,
                provider,
                verified.map(Boolean::valueOf),
                namespace.map(value -> value.toLowerCase(Locale.ROOT)),
                q.map(String::strip));
    }

    private static Optional<String> text(Map<String, List<String>> query, Set<String> taken, String name) {
        List<String> values = query.get(name);
        if (values == null || !taken.contains(name)) {
            return Optional.empty();
        }
        if (values.size() != 1) {
            throw new IllegalArgumentException(name + " is given " + values.size() + " times (expected once)");
        }
        String value = values.get(0);
        if (value.isBlank()
                || value.length() > MAX_QUERY_TEXT
                || !value.chars().allMatch(c -> c >= 0x20 && c != 0x7f)) {
            throw new IllegalArgumentException(
                    name + ": expected 1 to " + MAX_QUERY_TEXT + " printable characters, not blank");
        }
        return Optional.of(value);
    }

    private static OptionalInt number(Map<String, List<String>> query, Set<String> taken, String name) {
        Optional<String> value = text(query, taken, name);
        if (value.isEmpty()) {
            return OptionalInt.empty();
        }
        if (!value.get().matches("[0-9]{1," + MAX_NUMBER_DIGITS + "}")) {
            throw new IllegalArgumentException(name + ": '" + ExchangeLog.printable(value.get(), 40)
                    + "' (expected a non-negative integer of at most " + MAX_NUMBER_DIGITS + " digits)");
        }
        return OptionalInt.of(Integer.parseInt(value.get()));
    }
}
