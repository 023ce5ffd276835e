package io.providermirror.server.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderAddress;
import io.providermirror.server.access.ClientScope;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a route reaches, held against a client's {@link ClientScope}: the origin host and namespace of a provider or
 * module it names, the host alone for a discovery document, every namespace of a host for a module listing or a
 * search without a namespace, and everything for the status page, its data, the metrics and the transparency log
 * (they name every cached host and namespace). A route of none of these (health, the manual) reaches nothing.
 */
final class ClientReach {

    private ClientReach() {}

    /** Whether {@code scope} reaches what {@code route} asks for. */
    static boolean allowed(Route route, FullHttpRequest request, ClientScope scope) {
        if (scope.unlimited()) {
            return true;
        }
        if (route instanceof Route.RegistryDiscovery discovery) {
            return scope.allowsHost(discovery.hostname());
        }
        if (route instanceof Route.Home
                || route instanceof Route.StatusJson
                || route instanceof Route.Metrics
                || route instanceof Route.Log) {
            return false;
        }
        Optional<Reach> reach = reach(route, request);
        return reach.isEmpty() || scope.allows(reach.get().host(), reach.get().namespace());
    }

    /** A host and one namespace of it, or (empty) all of its namespaces. */
    private record Reach(String host, Optional<String> namespace) {
        static Reach of(ProviderAddress address) {
            return new Reach(address.hostname(), Optional.of(address.namespace().toLowerCase(Locale.ROOT)));
        }

        static Reach of(ModuleAddress address) {
            return new Reach(address.hostname(), Optional.of(address.namespace()));
        }
    }

    private static Optional<Reach> reach(Route route, FullHttpRequest request) {
        if (route instanceof Route.VersionIndex index) {
            return Optional.of(Reach.of(index.address()));
        } else if (route instanceof Route.VersionDocument document) {
            return Optional.of(Reach.of(document.address()));
        } else if (route instanceof Route.Archive archive) {
            return Optional.of(Reach.of(archive.address()));
        } else if (route instanceof Route.ProviderStatus status) {
            return Optional.of(Reach.of(status.address()));
        } else if (route instanceof Route.RegistryVersions versions) {
            return Optional.of(Reach.of(versions.address()));
        } else if (route instanceof Route.RegistryDownload download) {
            return Optional.of(Reach.of(download.address()));
        } else if (route instanceof Route.RegistryChecksums checksums) {
            return Optional.of(Reach.of(checksums.address()));
        } else if (route instanceof Route.ModuleVersions versions) {
            return Optional.of(Reach.of(versions.address()));
        } else if (route instanceof Route.ModuleDownload download) {
            return Optional.of(Reach.of(download.address()));
        } else if (route instanceof Route.ModuleArchive archive) {
            return Optional.of(Reach.of(archive.address()));
        } else if (route instanceof Route.ModuleApi api) {
            return Optional.of(reach(api.request(), request));
        }
        return Optional.empty();
    }

    private static Reach reach(ModuleApiRoutes.Request api, FullHttpRequest request) {
        if (api instanceof ModuleApiRoutes.ListModules list) {
            return new Reach(list.hostname(), list.namespace());
        } else if (api instanceof ModuleApiRoutes.Search search) {
            // A search within one namespace reaches that namespace; without one, every namespace of the host.
            List<String> namespace =
                    new QueryStringDecoder(request.uri()).parameters().get("namespace");
            return new Reach(
                    search.hostname(),
                    namespace == null || namespace.size() != 1
                            ? Optional.empty()
                            : Optional.of(namespace.get(0).strip().toLowerCase(Locale.ROOT)));
        } else if (api instanceof ModuleApiRoutes.LatestForEverySystem every) {
            return new Reach(every.hostname(), Optional.of(every.namespace()));
        } else if (api instanceof ModuleApiRoutes.Latest latest) {
            return Reach.of(latest.address());
        } else if (api instanceof ModuleApiRoutes.Details details) {
            return Reach.of(details.address());
        }
        return Reach.of(((ModuleApiRoutes.LatestDownload) api).address());
    }
}
