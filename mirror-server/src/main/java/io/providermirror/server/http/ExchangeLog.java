package io.providermirror.server.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import io.providermirror.server.metrics.MirrorMetrics;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One access-log line and one request measurement per exchange, and the knowledge of whether a response is
 * in progress (which a graceful shutdown waits for). Sits right after the HTTP codec, so it sees each request
 * head as it arrives and every part of every response, and counts the body bytes written. Responses leave in
 * the order requests came, so exchanges are a queue. A response cut short (an aborted transfer, a client gone)
 * is logged when the connection closes, marked as aborted.
 */
final class ExchangeLog extends ChannelDuplexHandler {

    /** The access log's logger: route it, or turn it off, in the logging configuration. */
    static final String LOGGER = "io.providermirror.access";
    /** What the handler that answered named the request (for the request meter's route tag). */
    static final AttributeKey<String> ROUTE = AttributeKey.valueOf("mirror.route");
    /** The name of the client the request comes from, as access control decided it (never its token). */
    static final AttributeKey<String> CLIENT = AttributeKey.valueOf("mirror.client");
    /** Where an archive response's bytes come from. */
    static final AttributeKey<MirrorMetrics.Source> SOURCE = AttributeKey.valueOf("mirror.source");

    private static final Logger ACCESS = LoggerFactory.getLogger(LOGGER);
    private static final int MAX_LOGGED_LENGTH = 256;
    /** Logged for a request whose connection closed before it was answered (nginx's convention). */
    static final int CLIENT_CLOSED_REQUEST = 499;

    /** One request and what has been sent of its response so far. */
    static final class Exchange {
        final long startNanos = System.nanoTime();
        /** Its place among the connection's requests, from 1 (0: an answer to no request). */
        final int ordinal;

        final String method;
        final String uri;
        final String userAgent;
        int status;
        String route = "invalid";
        String clientName = io.providermirror.server.access.Client.ANONYMOUS.name();
        MirrorMetrics.Source source;
        long bytes;

        Exchange(int ordinal, String method, String uri, String userAgent) {
            this.ordinal = ordinal;
            this.method = method;
            this.uri = uri;
            this.userAgent = userAgent;
        }
    }

    private final MirrorMetrics metrics;
    private final ArrayDeque<Exchange> exchanges = new ArrayDeque<>();
    private boolean closeWhenIdle;
    /** Requests read on this connection: the ordinal of the last one. */
    private int read;
    /** The client's address as the access log writes it: one connection, one address, formatted once. */
    private String remoteAddress;

    ExchangeLog(MirrorMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest request) {
            exchanges.add(new Exchange(
                    ++read,
                    request.method().name(),
                    printable(redacted(request.uri()), 1024),
                    printable(request.headers().get(HttpHeaderNames.USER_AGENT, "-"), MAX_LOGGED_LENGTH)));
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpResponse interim && interim.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
            // A 100 Continue is neither the exchange's answer nor its end: the body and the answer are to come.
            ctx.write(msg, promise);
            return;
        }
        Exchange exchange = exchanges.peek();
        if (exchange == null && msg instanceof HttpResponse) {
            // A response to no request the codec could read, e.g. to a malformed one.
            exchange = new Exchange(0, "-", "-", "-");
            exchanges.add(exchange);
        }
        if (exchange != null) {
            if (msg instanceof HttpResponse response) {
                exchange.status = response.status().code();
                String route = ctx.channel().attr(ROUTE).getAndSet(null);
                exchange.route = route == null ? exchange.route : route;
                String clientName = ctx.channel().attr(CLIENT).getAndSet(null);
                exchange.clientName = clientName == null ? exchange.clientName : clientName;
                exchange.source = ctx.channel().attr(SOURCE).getAndSet(null);
            }
            if (msg instanceof HttpContent content) {
                exchange.bytes += content.content().readableBytes();
            } else if (msg instanceof FileRegion region) {
                exchange.bytes += region.count();
            }
            if (msg instanceof LastHttpContent) {
                exchanges.poll();
                Exchange done = exchange;
                promise = promise.unvoid();
                promise.addListener(future -> {
                    finish(ctx, done, !future.isSuccess());
                    if (closeWhenIdle && exchanges.isEmpty()) {
                        ctx.close();
                    }
                });
            }
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        int last = ConnectionDiscipline.lastRequest(ctx.channel());
        Exchange exchange;
        while ((exchange = exchanges.poll()) != null) {
            if (exchange.status == 0 && exchange.ordinal > last) {
                // Read behind the connection's last request and dropped unread: no request of the mirror's.
                continue;
            }
            if (exchange.status == 0) {
                // The connection ended before any answer: as nginx does, "client closed request".
                exchange.status = CLIENT_CLOSED_REQUEST;
                String route = ctx.channel().attr(ROUTE).getAndSet(null);
                exchange.route = route == null ? exchange.route : route;
                String clientName = ctx.channel().attr(CLIENT).getAndSet(null);
                exchange.clientName = clientName == null ? exchange.clientName : clientName;
            }
            finish(ctx, exchange, true);
        }
        super.channelInactive(ctx);
    }

    /**
     * Part of a graceful shutdown, on the channel's event loop: an idle connection closes now, a busy one as
     * soon as the responses it owes are sent.
     */
    void closeWhenIdle(ChannelHandlerContext ctx) {
        closeWhenIdle = true;
        if (exchanges.isEmpty()) {
            ctx.close();
        }
    }

    private void finish(ChannelHandlerContext ctx, Exchange exchange, boolean aborted) {
        long nanos = System.nanoTime() - exchange.startNanos;
        metrics.httpRequest(exchange.route, exchange.status, exchange.clientName, nanos);
        if (exchange.source != null) {
            metrics.served(exchange.source, exchange.bytes);
        }
        if (!ACCESS.isInfoEnabled()) {
            return;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(nanos);
        if (remoteAddress == null) {
            remoteAddress = client(ctx.channel().remoteAddress());
        }
        log(ACCESS, remoteAddress, exchange, millis, aborted);
    }

    /** Writes {@code exchange}'s line to {@code access}: its text and, for the JSON format, its fields. */
    static void log(Logger access, String client, Exchange exchange, long millis, boolean aborted) {
        access.atInfo()
                .addKeyValue("client", client)
                .addKeyValue("method", exchange.method)
                .addKeyValue("path", exchange.uri)
                .addKeyValue("status", exchange.status)
                .addKeyValue("bytes", exchange.bytes)
                .addKeyValue("durationMs", millis)
                .addKeyValue("userAgent", exchange.userAgent)
                .addKeyValue("route", exchange.route)
                .addKeyValue("clientName", exchange.clientName)
                .addKeyValue("aborted", aborted)
                .log(line(client, exchange, millis, aborted));
    }

    /**
     * The line's text, made here rather than from a pattern with arguments: every part is already printable (see
     * {@link #printable}), and the writer thread then has no message to format.
     */
    private static String line(String client, Exchange exchange, long millis, boolean aborted) {
        StringBuilder line = new StringBuilder(64
                + client.length()
                + exchange.clientName.length()
                + exchange.uri.length()
                + exchange.userAgent.length());
        line.append(client)
                .append(' ')
                .append(exchange.clientName)
                .append(" \"")
                .append(exchange.method)
                .append(' ')
                .append(exchange.uri)
                .append("\" ")
                .append(exchange.status)
                .append(' ')
                .append(exchange.bytes)
                .append(' ')
                .append(millis)
                .append("ms \"")
                .append(exchange.userAgent)
                .append('"');
        if (aborted) {
            line.append(" aborted");
        }
        return line.toString();
    }

    private static String client(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getAddress() == null
                    ? inet.getHostString()
                    : inet.getAddress().getHostAddress();
        }
        return String.valueOf(address);
    }

    /**
     * The parameters the mirror defines, each with the values it writes (anything else is logged as {@code
     * redacted}); a signed archive URL's {@code signature} opens the archive for a while and is never logged.
     */
    private static final Map<String, Pattern> LOGGED_PARAMETERS = Map.of(
            "expires", Pattern.compile("[0-9]{1,20}"),
            "archive", Pattern.compile("[a-z0-9.]{1,16}"),
            "signature", Pattern.compile("(?!)"));

    /**
     * The request URI as the access log writes it: the path, and of the query only the parameters the mirror
     * defines ({@code expires}, {@code signature}, {@code archive}); anything else a client put there (a token, say)
     * is left out. The query is split as {@link io.netty.handler.codec.http.QueryStringDecoder} splits it for the
     * check (at {@code &} and {@code ;}, names percent-decoded), so every spelling the mirror would accept as {@code
     * signature} is recognised and redacted, not only the literal one.
     */
    static String redacted(String uri) {
        int query = uri.indexOf('?');
        if (query < 0) {
            return uri;
        }
        StringBuilder kept = new StringBuilder();
        int start = query + 1;
        while (start <= uri.length()) {
            int end = start;
            while (end < uri.length() && uri.charAt(end) != '&' && uri.charAt(end) != ';') {
                end++;
            }
            String parameter = uri.substring(start, end);
            int equals = parameter.indexOf('=');
            String name = equals < 0 ? parameter : parameter.substring(0, equals);
            Pattern values = LOGGED_PARAMETERS.get(decodedName(name));
            if (values != null) {
                String value = equals < 0 ? "" : parameter.substring(equals + 1);
                kept.append(kept.length() == 0 ? "" : String.valueOf(start > 0 ? uri.charAt(start - 1) : '&'))
                        .append(name)
                        .append('=')
                        .append(values.matcher(value).matches() ? value : "redacted");
            }
            start = end + 1;
        }
        return kept.length() == 0 ? uri.substring(0, query) : uri.substring(0, query + 1) + kept;
    }

    private static String decodedName(String rawName) {
        try {
            return QueryStringDecoder.decodeComponent(rawName, StandardCharsets.UTF_8)
                    .strip()
                    .toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException malformed) {
            // Not a name the decoder accepts, so not one the mirror reads.
            return "";
        }
    }

    /** Untrusted text made safe for a log line: bounded, and every control or non-ASCII character escaped. */
    static String printable(String text, int max) {
        if (text.length() <= max && isPrintable(text)) {
            return text;
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 8);
        for (int i = 0; i < text.length() && out.length() < max; i++) {
            char c = text.charAt(i);
            if (needsEscaping(c)) {
                out.append(String.format("\\x%02x", (int) c & 0xff));
            } else {
                out.append(c);
            }
        }
        if (out.length() >= max && text.length() > max) {
            out.append("...");
        }
        return out.toString();
    }

    /** Whether {@code text} holds nothing {@link #printable} would escape. */
    private static boolean isPrintable(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (needsEscaping(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** A control character, anything beyond ASCII, and the line's own quote and escape character. */
    private static boolean needsEscaping(char c) {
        return c < 0x20 || c > 0x7e || c == '"' || c == '\\';
    }
}
