package io.providermirror.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;

/**
 * The {@code 100 Continue} a request that expects it gets once the mirror takes it, written as bytes ahead of the
 * HTTP encoder: Netty's server codec (4.1) pairs every response it encodes, an interim one included, with the
 * method of the next request it decoded, so a {@code 100} encoded there made it take the answer that followed for
 * the answer to a request pipelined behind (a {@code HEAD}'s, sent without its body): the connection's answers
 * out of step.
 */
final class ContinueResponse {

    private static final byte[] BYTES = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private ContinueResponse() {}

    /** Writes the {@code 100 Continue} on the connection of {@code pipeline} (on its event loop). */
    static void send(ChannelPipeline pipeline) {
        pipeline.context(HttpServerCodec.class).writeAndFlush(Unpooled.wrappedBuffer(BYTES));
    }
}
