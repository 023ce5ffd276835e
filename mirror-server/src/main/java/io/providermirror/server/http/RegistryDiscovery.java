package io.providermirror.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.providermirror.model.ProviderAddress;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.face.providers.ProviderRegistryFace;
import io.providermirror.upstream.OriginException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The discovery document of a routed registry host on the mirror, {@code /registry/<hostname>/.well-known/
 * terraform.json}: it names the mirror's own {@code modules.v1} and {@code providers.v1} for that host, so a tool
 * given {@code https://<mirror>/registry/<hostname>} as a registry URL (an update bot, say) finds them the standard
 * way. The URLs are absolute, on the authority the client used, as a module download names its archive: service
 * discovery resolves a relative URL against the document's own URL, while some tools append it to the registry
 * URL instead, and only an absolute one means the same to both. A service that every request for the host would
 * be refused by (a refused host, a policy that refuses all of the host) is left out; when both are, the answer is
 * that refusal, as the routes would give it.
 */
final class RegistryDiscovery {

    static final String PREFIX = ModuleRoutes.PREFIX;
    static final String WELL_KNOWN = "/.well-known/terraform.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private RegistryDiscovery() {}

    /** {@code /registry/<hostname>/.well-known/terraform.json}, the hostname checked as the services' routes do. */
    static Route parse(String rawPath) {
        // "/registry/.well-known/terraform.json" shares its slash between the two: no hostname at all.
        String hostname = rawPath.length() < PREFIX.length() + WELL_KNOWN.length()
                ? ""
                : rawPath.substring(PREFIX.length(), rawPath.length() - WELL_KNOWN.length());
        if (!ProviderAddress.isValidHostname(hostname)) {
            return new Route.Invalid(
                    400,
                    "malformed hostname '" + hostname + "': expected /registry/<hostname>" + WELL_KNOWN
                            + " with a lowercase DNS name in punycode, optionally with :port");
        }
        return new Route.RegistryDiscovery(ProviderAddress.normalizeHostname(hostname));
    }

    /** The document for {@code route}, asked for with the Host header {@code host} (untrusted, checked here). */
    static FullHttpResponse response(
            Route.RegistryDiscovery route,
            String host,
            ProviderRegistryFace providers,
            ModuleMirror modules,
            boolean head) {
        String hostname = route.hostname();
        Optional<RuntimeException> providersRefused = providers.hostRefusal(hostname);
        Optional<RuntimeException> modulesRefused = modules.hostRefusal(hostname);
        if (providersRefused.isPresent() && modulesRefused.isPresent()) {
            return FailureResponse.of(
                    bothRefused(providersRefused.get(), modulesRefused.get()), head, PREFIX + hostname + WELL_KNOWN);
        }
        if (!HostAuthority.isValid(host)) {
            return JsonErrors.response(
                    HttpResponseStatus.BAD_REQUEST,
                    "a registry discovery document needs the request's Host header (the mirror's host name and "
                            + "port), to name the services on the mirror",
                    head);
        }
        ObjectNode document = JSON.createObjectNode();
        if (modulesRefused.isEmpty()) {
            document.put("modules.v1", "https://" + host + ModuleRoutes.base(hostname));
        }
        if (providersRefused.isEmpty()) {
            document.put("providers.v1", "https://" + host + ProviderRegistryRoutes.base(hostname));
        }
        return DocumentResponse.of(
                HttpResponseStatus.OK, "application/json", document.toString().getBytes(StandardCharsets.UTF_8), head);
    }

    /** One refusal for a host of which neither service is offered: the host's own, else both policies' reasons. */
    private static RuntimeException bothRefused(RuntimeException providers, RuntimeException modules) {
        if (providers instanceof OriginException) {
            return providers;
        }
        if (modules instanceof OriginException) {
            return modules;
        }
        return new PolicyDeniedException(providers.getMessage() + "; " + modules.getMessage());
    }
}
