package io.providermirror.upstream;

import java.io.IOException;

/**
 * The two ways {@link OriginHttpClient} reaches origins, documents through the JDK's client and archives through
 * Netty's, which are made by the first request that needs them: start-up does not pay for them, since a mirror
 * answering from its cache may never need them. {@link #prepare()} makes them ahead of that first request, which
 * would otherwise wait for the trust towards origins (the JDK's whole CA store, a TLS context for each client) and the
 * archive client's event loops; every request after uses what it made.
 *
 * @param documents documents and small files, read whole
 * @param archives  archives, opened as streams
 */
record OriginTransports(DocumentTransport documents, ArchiveTransport archives) {

    /** Both, with {@code settings}, neither made yet; archives connect to what {@code resolver} resolves. */
    static OriginTransports of(OriginHttpClient.Settings settings, OriginHttpClient.Resolver resolver) {
        return new OriginTransports(new DocumentTransport(settings), new ArchiveTransport(settings, resolver));
    }

    /**
     * Makes both clients now, and with them the trust towards origins.
     *
     * @throws IOException when the trust cannot be made; the first request to an origin fails the same way
     */
    void prepare() throws IOException {
        documents.prepare();
        archives.prepare();
    }

    /** True once both clients are made, by {@link #prepare()} or by requests. */
    boolean isPrepared() {
        return documents.madeClient() != null && archives.madeClient() != null;
    }
}
