package io.providermirror.server.http;

import io.netty.channel.ChannelHandlerContext;

/**
 * What an answer needs of its request, kept because the request itself is released when the handler's
 * {@code channelRead0} returns and an answer may be written later, when the mirror's future completes; {@code client}
 * is the name {@link AccessGate#client} gives the request's client (the inventory counts requests by it).
 */
record Exchange(
        ChannelHandlerContext ctx,
        boolean head,
        String range,
        String path,
        ConditionalHeaders conditions,
        String client) {}
