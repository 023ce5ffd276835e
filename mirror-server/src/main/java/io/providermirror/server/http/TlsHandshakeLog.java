package io.providermirror.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A failed TLS handshake costs one log line that says what happened and what the client must do, at most one
 * line per interval for a listener (with how many were left out), never a stack trace: a fleet of clients
 * that do not trust the mirror's certificate must not flood the log.
 */
final class TlsHandshakeLog extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(TlsHandshakeLog.class);

    /** Shared by every connection of one listener. */
    static final class Limiter {
        private final long intervalNanos;
        private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
        private final AtomicLong suppressed = new AtomicLong();
        private final String trustHint;

        /** @param trustHint what clients must trust, e.g. the generated CA's path */
        Limiter(long interval, TimeUnit unit, String trustHint) {
            this.intervalNanos = unit.toNanos(interval);
            this.trustHint = trustHint;
        }

        /** The number of lines left out since the last, or -1 when this one is to be left out too. */
        long admit() {
            long now = System.nanoTime();
            long due = next.get();
            if ((due == Long.MIN_VALUE || now - due >= 0) && next.compareAndSet(due, now + intervalNanos)) {
                return suppressed.getAndSet(0);
            }
            suppressed.incrementAndGet();
            return -1;
        }
    }

    private final Limiter limiter;

    TlsHandshakeLog(Limiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent completion && !completion.isSuccess()) {
            long leftOut = limiter.admit();
            if (leftOut >= 0) {
                String client = ctx.channel().remoteAddress() instanceof InetSocketAddress address
                        ? address.getAddress().getHostAddress()
                        : String.valueOf(ctx.channel().remoteAddress());
                LOG.warn(
                        "TLS handshake from {} failed: {}{}",
                        client,
                        explain(completion.cause()),
                        leftOut > 0 ? " (" + leftOut + " more such failures since the last line)" : "");
            }
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (causedBySsl(cause)) {
            // Logged once above, from the handshake event; the connection is over.
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    private String explain(Throwable cause) {
        String message = String.valueOf(rootMessage(cause)).toLowerCase(Locale.ROOT);
        if (message.contains("certificate_unknown")
                || message.contains("certificate unknown")
                || message.contains("bad_certificate")
                || message.contains("bad certificate")
                || message.contains("unknown_ca")
                || message.contains("unknown ca")) {
            return "the client does not trust this certificate; clients must trust " + limiter.trustHint;
        }
        if (message.contains("no_cipher")
                || message.contains("no shared cipher")
                || message.contains("protocol")
                || message.contains("version")) {
            return "the client and the mirror share no TLS version or cipher (" + rootMessage(cause) + ")";
        }
        if (rootCause(cause) instanceof java.nio.channels.ClosedChannelException || message.contains("reset")) {
            // Java clients close without an alert the server can read when they reject the certificate.
            return "the client closed the connection during the handshake, most likely because it does not trust "
                    + "this certificate; clients must trust " + limiter.trustHint;
        }
        return ExchangeLog.printable(String.valueOf(rootMessage(cause)), 300)
                + " (if the client reports a certificate error, it must trust " + limiter.trustHint + ")";
    }

    private static String rootMessage(Throwable cause) {
        Throwable root = rootCause(cause);
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    private static Throwable rootCause(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    private static boolean causedBySsl(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }
}
