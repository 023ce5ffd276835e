package io.providermirror.server.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * The routes of recently requested paths, in front of {@link RouteParser}: a warm document's path is parsed and
 * validated once, not on every request (parsing costs 2-3 µs, a few percent of a warm request's time). Keyed by
 * the raw path; bounded, so however many different paths clients send it holds at most {@link #MAX_ROUTES}; only
 * paths that parsed to a route are kept (a refusal is worked out again, and costs the sender the same every time).
 * Routes are immutable values, shared by every connection of a listener.
 */
final class RouteCache {

    /** At most this many routes are kept (the paths are at most {@link RouteParser#MAX_PATH_LENGTH} long). */
    static final int MAX_ROUTES = 4096;

    // Maintenance runs on the requesting thread (a few entries at a time, never blocking), so that no pool thread
    // is woken up on the shared cores for it.
    private final Cache<String, Route> routes = Caffeine.newBuilder()
            .maximumSize(MAX_ROUTES)
            .executor(Runnable::run)
            .build();

    Route route(String rawPath) {
        Route route = routes.getIfPresent(rawPath);
        if (route == null) {
            route = RouteParser.parse(rawPath);
            if (!(route instanceof Route.Invalid)) {
                routes.put(rawPath, route);
            }
        }
        return route;
    }

    /** How many routes are kept now, for tests. */
    long size() {
        routes.cleanUp();
        return routes.estimatedSize();
    }
}
