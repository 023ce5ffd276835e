package io.providermirror.testkit;

import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Answers that a {@link FakeOrigin} computes per request (paging, search, filters), for stubs that name this
 * extension: each such stub carries the id of its handler as the transformer parameter {@code handler}.
 */
final class DynamicResponses implements ResponseDefinitionTransformerV2 {

    static final String NAME = "dynamic-responses";
    static final String HANDLER = "handler";

    private final Map<String, Function<Request, ResponseDefinition>> handlers = new ConcurrentHashMap<>();

    /** Keeps {@code handler}; returns the id a stub names it by. */
    String register(Function<Request, ResponseDefinition> handler) {
        String id = UUID.randomUUID().toString();
        handlers.put(id, handler);
        return id;
    }

    @Override
    public ResponseDefinition transform(ServeEvent serveEvent) {
        Function<Request, ResponseDefinition> handler =
                handlers.get(serveEvent.getTransformerParameters().getString(HANDLER));
        return handler == null ? serveEvent.getResponseDefinition() : handler.apply(serveEvent.getRequest());
    }

    @Override
    public boolean applyGlobally() {
        return false;
    }

    @Override
    public String getName() {
        return NAME;
    }
}
