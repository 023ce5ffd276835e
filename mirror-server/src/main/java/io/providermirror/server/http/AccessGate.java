package io.providermirror.server.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.providermirror.server.access.Client;
import io.providermirror.server.access.MirrorAuth;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Access control for one listener: which routes want a bearer token, and which archive requests carry a valid
 * signed URL (or a token). Answers with the refusal a client can act on, or null when the request may proceed.
 */
final class AccessGate {

    /** The client name of a request that carries no name. */
    static final String ANONYMOUS = "anonymous";

    private final MirrorAuth auth;
    private final boolean managementOnly;
    private final StatusLogin login;

    /** @param managementOnly whether this is the management listener, which scrapers use without a token */
    AccessGate(MirrorAuth auth, boolean managementOnly) {
        this.auth = auth;
        this.managementOnly = managementOnly;
        this.login = new StatusLogin(auth);
    }

    /** The answer to the status page's sign-in form, posted to {@link StatusLogin#PATH}. */
    FullHttpResponse signIn(FullHttpRequest request) {
        return login.signIn(request);
    }

    /** Who a request comes from, and the 401 or 403 answer for it (null when it may be answered). */
    record Decision(Client client, FullHttpResponse refusal) {}

    /**
     * Who {@code request} to {@code route} comes from ({@link Client#ANONYMOUS} without an accepted token), and
     * the 401 or 403 answer for it, or a null refusal when it may be answered. A configured client's request is
     * recorded as seen, refused or not.
     */
    Decision decide(Route route, FullHttpRequest request, boolean head) {
        Optional<Client> presented = auth.client(request.headers().get(HttpHeaderNames.AUTHORIZATION));
        FullHttpResponse refusal = refusal(route, request, head, presented);
        if (presented.isEmpty() && refusal == null && auth.enabled() && isSignedUrl(route)) {
            // No token, and the signed URL checked: the client it was issued to is named in it, under its signature.
            presented = auth.signedClient(
                    first(new QueryStringDecoder(request.uri()).parameters(), MirrorAuth.CLIENT_PARAMETER));
        }
        presented.ifPresent(client -> auth.sightings().seen(client));
        return new Decision(presented.orElse(Client.ANONYMOUS), refusal);
    }

    /** The routes the CLI asks without a token, with the signed query of an answer that named them. */
    private static boolean isSignedUrl(Route route) {
        return route instanceof Route.Archive
                || route instanceof Route.RegistryChecksums
                || route instanceof Route.ModuleArchive;
    }

    private FullHttpResponse refusal(Route route, FullHttpRequest request, boolean head, Optional<Client> client) {
        if (wantsToken(route) && client.isEmpty()) {
            boolean page = isPage(route);
            if (page && login.signedIn(request.headers())) {
                return null;
            }
            if (page && StatusLogin.wantsPage(request.headers())) {
                return StatusLogin.form(head, null);
            }
            return unauthorized(head, request.headers().get(HttpHeaderNames.HOST), route);
        }
        if (!auth.enabled()) {
            return null;
        }
        if (client.isPresent()
                && !ClientReach.allowed(route, request, client.get().scope())) {
            return outOfScope(client.get(), route, head);
        }
        if (route instanceof Route.Archive archive) {
            return signedUrlRefusal(
                    request,
                    head,
                    (expires, signature, signedFor, authorization) -> auth.checkArchive(
                            archive.address(),
                            archive.version(),
                            archive.platform(),
                            expires,
                            signature,
                            signedFor,
                            authorization));
        }
        if (route instanceof Route.RegistryChecksums checksums) {
            // The CLI fetches these without credentials, as it fetches archives: they carry the archive's signed query.
            return signedUrlRefusal(
                    request,
                    head,
                    (expires, signature, signedFor, authorization) -> auth.checkRegistryFile(
                            checksums.address(),
                            checksums.version(),
                            checksums.platform(),
                            expires,
                            signature,
                            signedFor,
                            authorization));
        }
        if (route instanceof Route.ModuleArchive archive) {
            return signedUrlRefusal(
                    request,
                    head,
                    (expires, signature, signedFor, authorization) -> auth.checkModuleArchive(
                            archive.address(), archive.version(), expires, signature, signedFor, authorization));
        }
        return null;
    }

    /**
     * What a token opens when access control is on: the JSON documents, and on the main listener the status page
     * (it lists the cached providers, private ones too) and the metrics (they name hosts and providers). The
     * management listener is for scrapers inside the cluster and stays open, as do the health checks.
     */
    private boolean wantsToken(Route route) {
        return route instanceof Route.VersionIndex
                || route instanceof Route.VersionDocument
                || route instanceof Route.RegistryDiscovery
                || route instanceof Route.ModuleVersions
                || route instanceof Route.ModuleDownload
                || route instanceof Route.ModuleApi
                || route instanceof Route.RegistryVersions
                || route instanceof Route.RegistryDownload
                || route instanceof Route.Log
                || !managementOnly
                        && (route instanceof Route.Home
                                || route instanceof Route.ProviderStatus
                                || route instanceof Route.StatusJson
                                || route instanceof Route.Metrics);
    }

    /** The status page and its data, which a browser signed in with the form's cookie may see. */
    private static boolean isPage(Route route) {
        return route instanceof Route.Home
                || route instanceof Route.ProviderStatus
                || route instanceof Route.StatusJson;
    }

    private static FullHttpResponse unauthorized(boolean head, String host, Route route) {
        String mirrorHost = host == null ? "<mirror host>" : ExchangeLog.printable(host, 255);
        // Through a host block the CLI sends the credentials of the registry host it routes, not the mirror's.
        String credentialsHost =
                route instanceof Route.RegistryDocument document ? document.registryHost() : mirrorHost;
        boolean page = isPage(route);
        String message = page || route instanceof Route.Metrics || route instanceof Route.Log
                ? "this mirror wants a token for "
                        + (page ? "its status page" : route instanceof Route.Log ? "its transparency log" : "/metrics")
                        + ": send the header \"Authorization: Bearer <token>\" (the mirror's operators give out tokens"
                        + (route instanceof Route.Log ? ")" : "; the management listener serves /metrics without one)")
                : "this mirror wants a token: add credentials \"" + credentialsHost
                        + "\" { token = \"...\" } to the CLI "
                        + "configuration (the mirror's operators give out tokens)";
        FullHttpResponse response = JsonErrors.response(HttpResponseStatus.UNAUTHORIZED, message, head);
        response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"provider-mirror\"");
        return response;
    }

    /** The 403 for a client's request beyond its scope, naming what it may reach. */
    private static FullHttpResponse outOfScope(Client client, Route route, boolean head) {
        String what = route instanceof Route.Home
                        || route instanceof Route.StatusJson
                        || route instanceof Route.Metrics
                        || route instanceof Route.Log
                ? "the status page, its data, the metrics and the transparency log name every host and namespace, "
                        + "so only a client without a scope sees them"
                : "it asks for a host or namespace outside it";
        return JsonErrors.response(
                HttpResponseStatus.FORBIDDEN,
                "the client '" + client.name() + "' may reach " + client.scope().describe() + "; " + what
                        + " (the mirror's operators set what each client may reach in auth.clients)",
                head);
    }

    /** How one kind of signed URL is checked: its query's expiry and signature, or a bearer token. */
    @FunctionalInterface
    private interface SignedUrlCheck {
        MirrorAuth.ArchiveVerdict check(
                Optional<String> expires, Optional<String> signature, Optional<String> client, String authorization);
    }

    /** Checks a signed URL (or a bearer token) with {@code check}: a 403 when neither is valid, else null. */
    private static FullHttpResponse signedUrlRefusal(FullHttpRequest request, boolean head, SignedUrlCheck check) {
        Map<String, List<String>> query = new QueryStringDecoder(request.uri()).parameters();
        MirrorAuth.ArchiveVerdict verdict = check.check(
                first(query, "expires"),
                first(query, "signature"),
                first(query, MirrorAuth.CLIENT_PARAMETER),
                request.headers().get(HttpHeaderNames.AUTHORIZATION));
        return verdict.allowed() ? null : JsonErrors.response(HttpResponseStatus.FORBIDDEN, verdict.reason(), head);
    }

    private static Optional<String> first(Map<String, List<String>> query, String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
}
