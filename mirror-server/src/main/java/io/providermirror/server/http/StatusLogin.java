package io.providermirror.server.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;
import io.providermirror.server.access.MirrorAuth;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Signing in to the status page from a browser, which cannot send a bearer token: a request for a page without one
 * gets a form (401, HTML) instead of JSON; the form posts the token to {@code /login}, which answers with a cookie
 * holding it (HttpOnly, Secure, SameSite=Strict, for {@value #MAX_AGE_SECONDS} s) and a redirect to the page. The
 * cookie opens the status page and {@code /status.json} only, never the protocol documents or archives, so a
 * browser session grants nothing a CLI needs a token for.
 */
final class StatusLogin {

    /** The path the form posts to. */
    static final String PATH = "/login";

    static final String COOKIE = "provider_mirror_token";

    static final long MAX_AGE_SECONDS = 8 * 3600;

    private final MirrorAuth auth;

    StatusLogin(MirrorAuth auth) {
        this.auth = auth;
    }

    /** Whether the request carries a cookie with a token the mirror accepts. */
    boolean signedIn(HttpHeaders headers) {
        return cookieToken(headers).map(this::opensPage).orElse(false);
    }

    /** Whether {@code token} is a client's whose scope limits nothing: the page names every host and namespace. */
    private boolean opensPage(String token) {
        return auth.client("Bearer " + token)
                .map(client -> client.scope().unlimited())
                .orElse(false);
    }

    /** Whether the client is a browser asking for a page: it gets the form rather than a JSON 401. */
    static boolean wantsPage(HttpHeaders headers) {
        String accept = headers.get(HttpHeaderNames.ACCEPT);
        return accept != null && accept.contains("text/html");
    }

    /** The answer to a POST of the form: the cookie and a redirect to the status page, or the form again. */
    FullHttpResponse signIn(FullHttpRequest request) {
        String body = request.content().toString(StandardCharsets.UTF_8);
        List<String> tokens = new QueryStringDecoder(body, StandardCharsets.UTF_8, false)
                .parameters()
                .getOrDefault("token", List.of());
        String token = tokens.isEmpty() ? "" : tokens.get(0).strip();
        if (token.isEmpty() || !opensPage(token)) {
            return form(false, "That token is not accepted by this mirror for its status page.");
        }
        DefaultCookie cookie = new DefaultCookie(COOKIE, token);
        cookie.setHttpOnly(true);
        cookie.setSecure(true);
        cookie.setPath("/");
        cookie.setMaxAge(MAX_AGE_SECONDS);
        cookie.setSameSite(io.netty.handler.codec.http.cookie.CookieHeaderNames.SameSite.Strict);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SEE_OTHER);
        response.headers()
                .set(HttpHeaderNames.LOCATION, "/")
                .set(HttpHeaderNames.SET_COOKIE, ServerCookieEncoder.STRICT.encode(cookie))
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        return response;
    }

    /** The sign-in form, as a 401 (a {@code HEAD} gets its headers only). */
    static FullHttpResponse form(boolean head, String message) {
        String html = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>provider-mirror: sign in"
                + "</title><meta name=\"viewport\" content=\"width=device-width\"></head><body style=\"font-family:"
                + "system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem\"><h1>provider-mirror</h1>"
                + "<p>This mirror's status page wants a token (access control is on). Enter the token the mirror's "
                + "operators gave you; it is kept in a cookie for this browser only, for eight hours.</p>"
                + (message == null ? "" : "<p id=\"login-error\" style=\"color:#c62828\">" + message + "</p>")
                + "<form method=\"post\" action=\"" + PATH + "\"><label>Token <input type=\"password\" name=\"token\""
                + " autocomplete=\"current-password\" required autofocus></label> <button type=\"submit\">Sign in"
                + "</button></form><p>Scripts send <code>Authorization: Bearer &lt;token&gt;</code> instead.</p>"
                + "</body></html>";
        byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.UNAUTHORIZED,
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
                .set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"provider-mirror\"")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        return response;
    }

    private static Optional<String> cookieToken(HttpHeaders headers) {
        String header = headers.get(HttpHeaderNames.COOKIE);
        if (header == null) {
            return Optional.empty();
        }
        for (Cookie cookie : ServerCookieDecoder.STRICT.decode(header)) {
            if (COOKIE.equals(cookie.name())) {
                return Optional.of(cookie.value());
            }
        }
        return Optional.empty();
    }
}
