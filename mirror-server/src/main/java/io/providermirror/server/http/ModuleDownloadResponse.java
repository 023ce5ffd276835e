package io.providermirror.server.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.face.modules.ModuleDownload;

/**
 * The {@code 204} answer of a module version's {@code download}: {@code X-Terraform-Get} names the mirror's
 * archive of it (absolute, on the authority the client used), with the module's subdirectory after {@code //}, the
 * archive type as {@code ?archive=} and, with access control on, a signed query (the CLI sends no credentials when
 * it fetches the archive). A passed-through source is handed on as the origin wrote it. {@code X-Cache} says
 * whether the answer came from the version's pin ({@code HIT}) or from its origin.
 */
final class ModuleDownloadResponse {

    private static final AsciiString X_TERRAFORM_GET = AsciiString.cached("X-Terraform-Get");
    private static final AsciiString X_CACHE = AsciiString.cached("X-Cache");
    private static final AsciiString HIT = AsciiString.cached("HIT");
    private static final AsciiString MISS = AsciiString.cached("MISS");

    private ModuleDownloadResponse() {}

    static FullHttpResponse of(
            ModuleDownload download,
            Route.ModuleDownload route,
            String host,
            MirrorAuth auth,
            String client,
            boolean head) {
        if (download.passthrough().isEmpty() && !HostAuthority.isValid(host)) {
            return JsonErrors.response(
                    HttpResponseStatus.BAD_REQUEST,
                    "a module download needs the request's Host header (the mirror's host name and port), to name "
                            + "the archive it serves",
                    head);
        }
        String location;
        if (download.passthrough().isPresent()) {
            location = download.passthrough().get();
        } else {
            // Every part is validated (the authority above, the route's names and version, the suffix when the
            // answer was made), so the URL is built as text: no parse per request.
            location = "https://" + host + ModuleRoutes.base(route.address().hostname())
                    + route.address().registryPath() + "/" + route.version() + "/module."
                    + download.type().extension() + download.sourceSuffix();
            if (auth.enabled()) {
                location += "&" + auth.moduleArchiveQuery(route.address(), route.version(), client);
            }
        }
        FullHttpResponse response =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT, Unpooled.EMPTY_BUFFER);
        response.headers().set(X_TERRAFORM_GET, location).set(X_CACHE, download.pinned() ? HIT : MISS);
        return response;
    }
}
