package io.providermirror.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;

/**
 * The {@code 100 Continue} a request that expects it gets once the mirror takes it, in its turn: after every answer
 * owed to the requests before it has been written ({@link ConnectionDiscipline} counts them), never for a request
 * behind the connection's last one. Written as bytes ahead of the HTTP encoder, so it must wait for its turn here:
 * written at once, it was read as an interim answer to an earlier request, or landed in the middle of an answer's
 * body as it streamed. Netty's server codec (4.1) pairs every response it encodes, an interim one included, with the
 * method of the next request it decoded, so a {@code 100} encoded there made it take the answer that followed for the
 * answer to a request pipelined behind (a {@code HEAD}'s, sent without its body): the connection's answers out of
 * step. One per connection, on its event loop.
 */
final class ContinueResponse {

    private static final byte[] BYTES = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** Sent when the connection's outstanding answers fall to this; -1: none is owed. */
    private int whenOutstanding = -1;

    /**
     * Sends a {@code 100 Continue} for the request expecting one on {@code pipeline}'s connection, in its turn.
     *
     * @param taken whether the request was handed on already (the operator API's import), or is still being read
     *     (the aggregator's)
     */
    static void inTurn(ChannelPipeline pipeline, boolean taken) {
        pipeline.get(ConnectionDiscipline.class).continueInTurn(taken ? 1 : 0);
    }

    /** Owes a {@code 100}, sent now if {@code outstanding} is already at most {@code whenOutstanding}. */
    void owe(ChannelPipeline pipeline, int whenOutstanding, int outstanding) {
        if (outstanding <= whenOutstanding) {
            send(pipeline);
        } else {
            this.whenOutstanding = whenOutstanding;
        }
    }

    /** An answer was written, {@code outstanding} are left: the {@code 100} owed is sent in its turn, or dropped. */
    void answered(ChannelPipeline pipeline, int outstanding, boolean connectionGoesOn) {
        if (whenOutstanding < 0) {
            return;
        }
        if (!connectionGoesOn) {
            cancel();
        } else if (outstanding <= whenOutstanding) {
            cancel();
            send(pipeline);
        }
    }

    /** Owes nothing any more: the request's body came anyway, or a later request was taken. */
    void cancel() {
        whenOutstanding = -1;
    }

    private static void send(ChannelPipeline pipeline) {
        pipeline.context(HttpServerCodec.class).writeAndFlush(Unpooled.wrappedBuffer(BYTES));
    }
}
