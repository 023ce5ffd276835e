package io.providermirror.upstream.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * An exchange whose connection closed between the pool's check and the exchange's start on the event loop: a
 * closed connection's pipeline is emptied, and the exchange's handler, had it been added, would never hear of
 * anything; the caller waited out its head timeout (60 s) and then met a handler with no context.
 */
final class TransferStartTest {

    @Test
    void aKeptConnectionClosedBeforeTheExchangeStartsFailsItsHeadAtOnceAsStale() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.pipeline().addLast(ConnectionPool.GUARD, new ChannelInboundHandlerAdapter());
        channel.close().sync();
        TransferHandler handler = new TransferHandler("origin.test:443", true, null, channel);
        FullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/a.zip");

        TransferClient.start(channel, get, handler);

        assertThat(handler.head())
                .failsWithin(java.time.Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(StaleConnection.class);
        assertThat(get.refCnt())
                .as("the request that was never sent is released")
                .isZero();
    }

    @Test
    void aHandlerAbandonedBeforeItWasEverAddedClosesItsConnection() {
        EmbeddedChannel channel = new EmbeddedChannel();
        TransferHandler handler = new TransferHandler("origin.test:443", false, null, channel);

        handler.abandon();
        channel.runPendingTasks();

        assertThat(channel.isOpen())
                .as("the connection is not kept: it never carried the request")
                .isFalse();
    }
}
