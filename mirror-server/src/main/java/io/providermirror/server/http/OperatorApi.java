package io.providermirror.server.http;

import io.providermirror.server.access.TokenHashes;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The operator API of one mirror: the operator tokens that open it ({@code operator.tokens}; never a client
 * token) and what it does. Served only when both are there: otherwise every {@code /api/} path answers 404, as a
 * path the mirror does not serve.
 */
public final class OperatorApi {

    /** No operator API. */
    public static final OperatorApi OFF = new OperatorApi(TokenHashes.NONE, null);

    private final TokenHashes tokens;
    private final OperatorActions actions;
    /** One import at a time: bundles are large, and a second waits for nothing the first does not also do. */
    private final AtomicBoolean importing = new AtomicBoolean();

    /** @param actions what the API does, or null when this process cannot import (the API is then off) */
    public OperatorApi(TokenHashes tokens, OperatorActions actions) {
        this.tokens = tokens;
        this.actions = actions;
    }

    boolean enabled() {
        return actions != null && !tokens.isEmpty();
    }

    TokenHashes tokens() {
        return tokens;
    }

    OperatorActions actions() {
        return actions;
    }

    /** Takes the one place for an import; false when another import holds it. */
    boolean startImport() {
        return importing.compareAndSet(false, true);
    }

    void endImport() {
        importing.set(false);
    }
}
