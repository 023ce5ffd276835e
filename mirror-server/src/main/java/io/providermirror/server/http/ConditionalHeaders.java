package io.providermirror.server.http;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Date;

/**
 * A request's {@code If-None-Match} and {@code If-Range} (RFC 9110, 13.1.2 and 13.1.5), judged against a
 * representation's strong entity tag and {@code Last-Modified}. Archives are immutable and their entity tag is
 * their sha256, so a client that has one gets 304, and a range asked for a copy it no longer has gets the
 * whole archive rather than a piece of another one.
 */
record ConditionalHeaders(String ifNoneMatch, String ifRange) {

    static ConditionalHeaders of(HttpHeaders headers) {
        String ifNoneMatch = headers.getAll(HttpHeaderNames.IF_NONE_MATCH).isEmpty()
                ? null
                : String.join(",", headers.getAll(HttpHeaderNames.IF_NONE_MATCH));
        return new ConditionalHeaders(ifNoneMatch, headers.get(HttpHeaderNames.IF_RANGE));
    }

    /** Whether {@code If-None-Match} names {@code etag} (weak comparison, as the RFC wants for it) or is {@code *}. */
    boolean notModified(String etag) {
        if (ifNoneMatch == null) {
            return false;
        }
        for (String tag : ifNoneMatch.split(",")) {
            String candidate = tag.strip();
            if (candidate.equals("*")) {
                return true;
            }
            if (candidate.startsWith("W/")) {
                candidate = candidate.substring(2);
            }
            if (candidate.equals(etag)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a {@code Range} may be served as a part: always without {@code If-Range}; with one, only when it
     * is this representation's strong entity tag or exactly its {@code Last-Modified} date. A stale or weak
     * validator means the client's copy is another one: it gets the whole representation.
     */
    boolean rangeApplies(String etag, String lastModified) {
        if (ifRange == null) {
            return true;
        }
        String validator = ifRange.strip();
        if (validator.startsWith("\"")) {
            return validator.equals(etag);
        }
        if (validator.startsWith("W/")) {
            return false;
        }
        Date date = DateFormatter.parseHttpDate(validator);
        Date modified = DateFormatter.parseHttpDate(lastModified);
        return date != null && modified != null && date.toInstant().equals(modified.toInstant());
    }
}
