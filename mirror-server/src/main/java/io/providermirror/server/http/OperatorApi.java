package io.providermirror.server.http;

import io.providermirror.server.access.TokenHashes;
import io.providermirror.server.report.StatusReports;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The operator API of one mirror: the operator tokens that open it ({@code operator.tokens}; never a client
 * token), what it does, and the mirror's status it reports. Served only when tokens and actions are both there:
 * otherwise every {@code /api/} path answers 404, as a path the mirror does not serve.
 */
public final class OperatorApi {

    /** No operator API. */
    public static final OperatorApi OFF = new OperatorApi(TokenHashes.NONE, null, null);

    private final TokenHashes tokens;
    private final OperatorActions actions;
    private final StatusReports reports;
    /** One import at a time: bundles are large, and a second waits for nothing the first does not also do. */
    private final AtomicBoolean importing = new AtomicBoolean();

    /**
     * @param actions what the API does, or null when this process cannot import (the API is then off)
     * @param reports the mirror's status, as the status page shows it
     */
    public OperatorApi(TokenHashes tokens, OperatorActions actions, StatusReports reports) {
        this.tokens = tokens;
        this.actions = actions;
        this.reports = reports;
    }

    boolean enabled() {
        return actions != null && reports != null && !tokens.isEmpty();
    }

    TokenHashes tokens() {
        return tokens;
    }

    OperatorActions actions() {
        return actions;
    }

    StatusReports reports() {
        return reports;
    }

    /** Takes the one place for an import; false when another import holds it. */
    boolean startImport() {
        return importing.compareAndSet(false, true);
    }

    void endImport() {
        importing.set(false);
    }
}
