package io.providermirror.server.face.modules;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The query parameters of the full module registry API's lists and search, validated by the HTTP layer: what the
 * mirror passes on to an origin (only these, in this order) and applies itself when it answers from its cache.
 *
 * @param namespace search only: the namespace results are limited to (a list takes it from its path)
 * @param q         search only: the search string
 */
public record ModuleApiQuery(
        OptionalInt offset,
        OptionalInt limit,
        Optional<String> provider,
        Optional<Boolean> verified,
        Optional<String> namespace,
        Optional<String> q) {

    /** The page size the mirror applies when it answers itself and the client named none, as the public registry. */
    public static final int DEFAULT_LIMIT = 15;
    /** The largest page the mirror answers itself; a larger {@code limit} is lowered to it, as the API says. */
    public static final int MAX_LIMIT = 100;

    /** The parameters as sent on, and as paging links repeat them. */
    public Map<String, String> parameters() {
        Map<String, String> parameters = new LinkedHashMap<>();
        limit.ifPresent(value -> parameters.put("limit", Integer.toString(value)));
        namespace.ifPresent(value -> parameters.put("namespace", value));
        offset.ifPresent(value -> parameters.put("offset", Integer.toString(value)));
        provider.ifPresent(value -> parameters.put("provider", value));
        q.ifPresent(value -> parameters.put("q", value));
        verified.ifPresent(value -> parameters.put("verified", value.toString()));
        return parameters;
    }

    /** These parameters with {@code offset} replaced: a paging link's. */
    public Map<String, String> parametersAt(int newOffset) {
        Map<String, String> parameters = new LinkedHashMap<>(parameters());
        parameters.remove("offset");
        parameters.put("offset", Integer.toString(newOffset));
        return parameters;
    }

    /** The page size the mirror applies itself. */
    int pageSize() {
        return Math.min(limit.orElse(DEFAULT_LIMIT), MAX_LIMIT);
    }
}
