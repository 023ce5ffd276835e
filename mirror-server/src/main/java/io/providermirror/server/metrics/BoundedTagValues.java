package io.providermirror.server.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets through the first {@code limit} distinct values of a tag and maps every later one to {@code other},
 * so a tag fed from outside (a host name in a request path) cannot multiply time series without end.
 */
final class BoundedTagValues {

    static final String OTHER = "other";

    private final int limit;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();

    BoundedTagValues(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit: " + limit + " (expected: > 0)");
        }
        this.limit = limit;
    }

    /** Lets through exactly {@code values} and maps every other value to {@code other}. */
    static BoundedTagValues only(java.util.Collection<String> values) {
        BoundedTagValues only = new BoundedTagValues(Math.max(1, values.size()));
        only.admitted.addAll(values);
        return only;
    }

    String value(String candidate) {
        if (admitted.contains(candidate)) {
            return candidate;
        }
        synchronized (this) {
            if (admitted.size() < limit) {
                admitted.add(candidate);
                return candidate;
            }
        }
        return OTHER;
    }
}
