package io.providermirror.server.http;

import io.providermirror.server.report.StatusDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What the operator API answers to a request that carries no body of its own (every route but an import): the
 * action it asks for ({@link OperatorActions}), the mirror's status ({@link StatusDocuments} over the
 * {@code StatusReports} the status page renders from, off the event loop), or the API's OpenAPI description.
 */
final class OperatorAnswers {

    private OperatorAnswers() {}

    /** The media type of the answer to {@code route}. */
    static String contentType(OperatorRoutes.OperatorRoute route) {
        return route instanceof OperatorRoutes.Description ? "application/yaml; charset=utf-8" : "application/json";
    }

    /** The name the access log and the meters give {@code route}. */
    static String logName(OperatorRoutes.OperatorRoute route) {
        if (route instanceof OperatorRoutes.Import) {
            return "operator_import";
        } else if (route instanceof OperatorRoutes.Accept) {
            return "operator_accept";
        } else if (route instanceof OperatorRoutes.Status) {
            return "operator_status";
        } else if (route instanceof OperatorRoutes.ProviderStatus) {
            return "operator_provider_status";
        } else if (route instanceof OperatorRoutes.Description) {
            return "operator_description";
        } else if (route instanceof OperatorRoutes.Clients) {
            return "operator_clients";
        } else if (route instanceof OperatorRoutes.Inventory) {
            return "operator_inventory";
        } else if (route instanceof OperatorRoutes.PurgeProvider || route instanceof OperatorRoutes.PurgeModule) {
            return "operator_purge";
        }
        return "operator";
    }

    /** The answer to {@code route}, which is not an import; a refusal completes with {@link OperatorActions.Refused}. */
    static CompletableFuture<byte[]> of(OperatorApi api, Executor executor, OperatorRoutes.OperatorRoute route) {
        if (route instanceof OperatorRoutes.Accept accept) {
            return api.actions().acceptModule(accept.address(), accept.version());
        } else if (route instanceof OperatorRoutes.PurgeProvider purge) {
            return api.actions().purgeProvider(purge.address(), purge.version(), purge.platforms());
        } else if (route instanceof OperatorRoutes.Inventory inventory) {
            return api.actions().inventory(inventory.query());
        } else if (route instanceof OperatorRoutes.PurgeModule purge) {
            return api.actions().purgeModule(purge.address(), purge.version());
        } else if (route instanceof OperatorRoutes.Status) {
            return CompletableFuture.supplyAsync(
                    () -> StatusDocuments.json(api.reports().status()), executor);
        } else if (route instanceof OperatorRoutes.ProviderStatus provider) {
            return CompletableFuture.supplyAsync(
                    () -> api.reports()
                            .provider(provider.address())
                            .map(StatusDocuments::json)
                            .orElseThrow(() -> new OperatorActions.Refused(
                                    404, "nothing of " + provider.address() + " is cached on this mirror")),
                    executor);
        } else if (route instanceof OperatorRoutes.Description) {
            return CompletableFuture.supplyAsync(OperatorAnswers::description, executor);
        } else if (route instanceof OperatorRoutes.Clients) {
            return CompletableFuture.supplyAsync(
                    () -> StatusDocuments.json(api.reports().clients()), executor);
        }
        throw new IllegalArgumentException("not a route answered without a body: " + route);
    }

    /** The API's OpenAPI description, as the jar carries it. */
    static byte[] description() {
        try (InputStream in = OperatorAnswers.class.getResourceAsStream(OperatorRoutes.DESCRIPTION_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("this build carries no " + OperatorRoutes.DESCRIPTION_RESOURCE);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
