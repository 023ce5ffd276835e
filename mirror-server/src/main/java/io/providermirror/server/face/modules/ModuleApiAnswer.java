package io.providermirror.server.face.modules;

import io.providermirror.server.core.RenderedDocument;

/**
 * An answer of the full module registry API, with where it came from: {@link Source#ORIGIN} when the origin's
 * answer (fresh, or held for the index TTL) was rewritten for the client, {@link Source#CACHE} when the mirror built
 * it from what it holds because it is offline, or the origin failed or implements only the protocol.
 */
public record ModuleApiAnswer(RenderedDocument document, Source source) {

    /** Where an answer came from, as the {@code X-Mirror-Answer} header says it. */
    public enum Source {
        ORIGIN,
        CACHE;

        /** The header's value: {@code origin} or {@code cache}. */
        public String header() {
            return this == ORIGIN ? "origin" : "cache";
        }
    }
}
