package io.providermirror.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.providermirror.cache.StoredBlob;
import io.providermirror.server.core.ArchiveSource;
import io.providermirror.server.metrics.MirrorMetrics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Date;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an archive: a cached one zero-copy from its file (in chunks through TLS, which must encrypt it), or as
 * it is when the store holds it in memory (a small one),
 * with its entity tag, ranges and conditional requests; one still being fetched as a chunked body that follows
 * the fill; one the client reads from the shared store itself as a redirect. Every path releases the archive's lease, which keeps it from being evicted while it is sent.
 */
final class ArchiveResponse {

    /** Logged under the handler's name, as before this had a class of its own: operators filter on it. */
    private static final Logger LOG = LoggerFactory.getLogger(MirrorHttpHandler.class);

    private static final int FILE_CHUNK_SIZE = 64 * 1024;
    /**
     * The largest archive sent over TLS as one full response (module archives, small providers): read with one
     * {@code pread} into one buffer and encrypted in one pass, in full 16 KiB records, with one flush, instead of
     * a chunk at a time through the chunked writer's queue, with a promise, a listener and a flush per chunk. While
     * the client drains it, such a connection holds at most this much (encrypted), where a chunked one holds about
     * two chunks.
     */
    static final int WHOLE_RESPONSE_BYTES = 256 * 1024;
    /** Tells operators, and warm, whether an archive came from the cache ({@code HIT}) or from its origin. */
    private static final String X_CACHE = "X-Cache";

    private static final String IMMUTABLE = "public, max-age=31536000, immutable";

    private ArchiveResponse() {}

    /** Answers {@code exchange} with {@code source}, which this takes over (and closes). */
    static void send(Exchange exchange, ArchiveSource source, MirrorMetrics metrics) {
        if (source instanceof ArchiveSource.Cached cached) {
            sendCached(exchange, cached);
        } else if (source instanceof ArchiveSource.Filling filling) {
            sendFilling(exchange, filling);
        } else if (source instanceof ArchiveSource.Redirected redirected) {
            sendRedirected(exchange, redirected, metrics);
        }
    }

    /**
     * A GET is sent to the presigned URL with a 307, which keeps the method (the URL opens a GET and nothing else)
     * and is never cached by default; {@code no-store} says so again, as the URL expires. A HEAD is answered here,
     * from the size and sha256 the object's commit recorded, as a HEAD of a cached archive is: a presigned GET URL
     * would refuse it. A conditional GET that matches is a 304 without a redirect.
     */
    private static void sendRedirected(Exchange exchange, ArchiveSource.Redirected redirected, MirrorMetrics metrics) {
        ChannelHandlerContext ctx = exchange.ctx();
        StoredBlob blob = redirected.blob();
        String etag = "\"" + blob.sha256() + "\"";
        String lastModified = DateFormatter.format(Date.from(blob.committedAt()));
        if (exchange.conditions().notModified(etag)) {
            ctx.writeAndFlush(notModified(etag, lastModified, blob.size()));
            return;
        }
        if (exchange.head()) {
            HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, contentType(exchange.path()))
                    .set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES)
                    .set(HttpHeaderNames.ETAG, etag)
                    .set(HttpHeaderNames.LAST_MODIFIED, lastModified)
                    .set(HttpHeaderNames.CACHE_CONTROL, IMMUTABLE)
                    .set(X_CACHE, "HIT");
            HttpUtil.setContentLength(response, blob.size());
            ctx.write(response);
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.TEMPORARY_REDIRECT, Unpooled.EMPTY_BUFFER);
        response.headers()
                .set(HttpHeaderNames.LOCATION, redirected.redirect().location().toASCIIString())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set(X_CACHE, "HIT");
        HttpUtil.setContentLength(response, 0);
        metrics.archiveRedirected();
        ctx.writeAndFlush(response);
    }

    /** A 304 for a conditional request whose entity tag matches: no body, no redirect. */
    private static FullHttpResponse notModified(String etag, String lastModified, long size) {
        FullHttpResponse notModified = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_MODIFIED, Unpooled.EMPTY_BUFFER);
        notModified
                .headers()
                .set(HttpHeaderNames.ETAG, etag)
                .set(HttpHeaderNames.LAST_MODIFIED, lastModified)
                .set(HttpHeaderNames.CACHE_CONTROL, IMMUTABLE)
                .set(X_CACHE, "HIT");
        // The length a 200 would have (RFC 9110 allows it); it also tells the keep-alive handler where the
        // response ends, so the connection stays open.
        HttpUtil.setContentLength(notModified, size);
        return notModified;
    }

    private static void sendCached(Exchange exchange, ArchiveSource.Cached cached) {
        ChannelHandlerContext ctx = exchange.ctx();
        ctx.channel().attr(ExchangeLog.SOURCE).set(MirrorMetrics.Source.CACHE);
        long size = cached.blob().size();
        String etag = "\"" + cached.blob().sha256() + "\"";
        String lastModified = DateFormatter.format(Date.from(cached.blob().committedAt()));
        if (exchange.conditions().notModified(etag)) {
            closeQuietly(cached);
            ctx.writeAndFlush(notModified(etag, lastModified, size));
            return;
        }
        String range = exchange.conditions().rangeApplies(etag, lastModified) ? exchange.range() : null;
        ByteRange.Outcome outcome = ByteRange.parse(range, size);
        if (outcome instanceof ByteRange.Outcome.Unsatisfiable) {
            closeQuietly(cached);
            FullHttpResponse response = JsonErrors.response(
                    HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                    "the requested range is outside the archive's " + size + " bytes",
                    exchange.head());
            response.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + size);
            ctx.writeAndFlush(response);
            return;
        }
        long offset = 0;
        long length = size;
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        if (outcome instanceof ByteRange.Outcome.Partial partial) {
            offset = partial.range().start();
            length = partial.range().length();
            response.setStatus(HttpResponseStatus.PARTIAL_CONTENT);
            response.headers()
                    .set(
                            HttpHeaderNames.CONTENT_RANGE,
                            "bytes " + offset + "-" + partial.range().endInclusive() + "/" + size);
        }
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType(exchange.path()))
                .set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES)
                .set(HttpHeaderNames.ETAG, etag)
                .set(HttpHeaderNames.LAST_MODIFIED, lastModified)
                .set(HttpHeaderNames.CACHE_CONTROL, IMMUTABLE)
                .set(X_CACHE, "HIT");
        HttpUtil.setContentLength(response, length);
        if (exchange.head()) {
            closeQuietly(cached);
            ctx.write(response);
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        Optional<ByteBuffer> held = cached.held();
        if (held.isPresent()) {
            // In memory (a small archive the store holds): sent as it is, no file opened or read.
            ByteBuffer content = held.get();
            closeQuietly(cached);
            ctx.writeAndFlush(new DefaultFullHttpResponse(
                    response.protocolVersion(),
                    response.status(),
                    Unpooled.wrappedBuffer(content.position((int) offset).limit((int) (offset + length))),
                    response.headers(),
                    EmptyHttpHeaders.INSTANCE));
            return;
        }
        if (length <= WHOLE_RESPONSE_BYTES
                && cached.channel() instanceof FileChannel small
                && ctx.pipeline().get(SslHandler.class) != null) {
            sendSmall(ctx, response, cached, small, offset, (int) length);
            return;
        }
        ctx.write(response);
        ChannelFuture done;
        try {
            if (!(cached.channel() instanceof FileChannel file)) {
                // Not on the local disk: read into buffers as the connection drains.
                done = ctx.writeAndFlush(
                        new HttpChunkedInput(new ChannelRangeInput(cached.channel(), offset, length, FILE_CHUNK_SIZE)));
            } else if (ctx.pipeline().get(SslHandler.class) != null) {
                done = ctx.writeAndFlush(
                        new HttpChunkedInput(new ChunkedNioFile(file, offset, length, FILE_CHUNK_SIZE)));
            } else {
                ctx.write(new DefaultFileRegion(file, offset, length));
                done = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(cached);
            ctx.close();
            return;
        }
        done.addListener(future -> {
            // Releases the lease that kept the archive from being evicted while it was sent.
            closeQuietly(cached);
            if (!future.isSuccess()) {
                ctx.close();
            }
        });
    }

    /**
     * An archive of at most {@link #WHOLE_RESPONSE_BYTES} over TLS (a module's, a small provider's) as one full
     * response: one read where a chunked transfer would make one per 64 KiB, without the chunked writer's queue, its
     * listeners, a flush per chunk and a separate write of the last chunk, which cost a small archive more than
     * encrypting its bytes does.
     */
    private static void sendSmall(
            ChannelHandlerContext ctx,
            HttpResponse head,
            ArchiveSource.Cached cached,
            FileChannel file,
            long offset,
            int length) {
        ByteBuf content = ctx.alloc().buffer(length);
        try {
            while (content.readableBytes() < length) {
                int read = content.writeBytes(file, offset + content.readableBytes(), length - content.readableBytes());
                if (read < 0) {
                    throw new IOException(
                            "the cached archive ended after " + content.readableBytes() + " of " + length + " bytes");
                }
            }
        } catch (IOException | RuntimeException e) {
            content.release();
            closeQuietly(cached);
            ctx.close();
            return;
        }
        closeQuietly(cached);
        ctx.writeAndFlush(new DefaultFullHttpResponse(
                head.protocolVersion(), head.status(), content, head.headers(), EmptyHttpHeaders.INSTANCE));
    }

    private static void sendFilling(Exchange exchange, ArchiveSource.Filling filling) {
        ChannelHandlerContext ctx = exchange.ctx();
        ctx.channel().attr(ExchangeLog.SOURCE).set(MirrorMetrics.Source.UPSTREAM);
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/zip").set(X_CACHE, "MISS");
        if (filling.length().isPresent()) {
            HttpUtil.setContentLength(response, filling.length().getAsLong());
        } else {
            HttpUtil.setTransferEncodingChunked(response, true);
        }
        if (exchange.head()) {
            closeQuietly(filling);
            ctx.write(response);
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            return;
        }
        ChunkedWriteHandler chunked = ctx.pipeline().get(ChunkedWriteHandler.class);
        AutoCloseable subscription = filling.fill().onProgress(chunked::resumeTransfer);
        ctx.write(response);
        ChannelFuture done = ctx.writeAndFlush(new HttpChunkedInput(new FillChunkedInput(
                filling.fill(), filling.channel(), filling.length().orElse(-1))));
        done.addListener(future -> {
            closeQuietly(subscription);
            if (!future.isSuccess()) {
                // Closing without the rest of the body is how a client learns the archive was not good.
                LOG.debug(
                        "archive response for {} aborted: {}",
                        exchange.path(),
                        future.cause().toString());
                ctx.close();
            }
        });
    }

    /**
     * Closes what an answer holds, when it is closeable (an archive's lease, a fill subscription); an answer
     * that is not sent, because the client left first, is released here too.
     */
    static void closeQuietly(Object resource) {
        if (resource instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.debug("closing {} failed: {}", resource, e.toString());
            }
        }
    }

    /** A provider's zip, or a module archive by its extension. */
    private static String contentType(String path) {
        if (path.endsWith(".zip")) {
            return "application/zip";
        } else if (path.endsWith(".tar.gz") || path.endsWith(".tgz")) {
            return "application/gzip";
        }
        return "application/octet-stream";
    }
}
