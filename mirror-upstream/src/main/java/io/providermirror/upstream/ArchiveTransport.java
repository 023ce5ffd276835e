package io.providermirror.upstream;

import io.providermirror.upstream.transfer.ConnectionReuse;
import io.providermirror.upstream.transfer.TransferClient;
import io.providermirror.upstream.transfer.TransferRequest;
import io.providermirror.upstream.transfer.TransferResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Archives through Netty's client ({@link TransferClient}): connects to exactly the address the destination check
 * resolved and allowed (or, for a host configured for the origin, to the address resolved here), or through the
 * egress proxy exactly when {@link OriginProxy} says so. The client and its threads start with the first archive
 * and stop with {@link #close()}.
 */
final class ArchiveTransport implements HopTransport<ArchiveTransport.ArchiveHop>, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OriginHttpClient.class);

    /** An answer of Netty's client, its body on the socket until read. */
    record ArchiveHop(TransferResponse response) implements Hop, ArchiveChunks {

        @Override
        public URI uri() {
            return response.uri();
        }

        @Override
        public int status() {
            return response.status();
        }

        @Override
        public Optional<String> header(String name) {
            return response.header(name);
        }

        OptionalLong contentLength() {
            return response.contentLength();
        }

        @Override
        public ByteBuffer next() throws IOException {
            return response.next();
        }

        @Override
        public void close() {
            response.close();
        }

        @Override
        public void discard() {
            response.close();
        }
    }

    private final OriginHttpClient.Settings settings;
    private final OriginHttpClient.Resolver resolver;
    private TransferClient client;
    private boolean closed;

    ArchiveTransport(OriginHttpClient.Settings settings, OriginHttpClient.Resolver resolver) {
        this.settings = settings;
        this.resolver = resolver;
    }

    @Override
    public ArchiveHop send(URI uri, InetAddress checked, Map<String, String> headers, Duration timeout)
            throws IOException, InterruptedException {
        TransferRequest request;
        if (connectsToCheckedAddress(uri)) {
            InetAddress address = checked != null ? checked : resolve(uri.getHost(), uri.getHost());
            request = new TransferRequest(
                    uri,
                    new InetSocketAddress(address, OriginDestinations.port(uri)),
                    null,
                    headers,
                    settings.connectTimeout(),
                    timeout,
                    settings.readTimeout());
        } else {
            OriginProxy proxy = settings.proxy();
            InetSocketAddress at = proxy.address();
            InetAddress address = resolve(at.getHostString(), "the proxy " + proxy.describe());
            Optional<PasswordAuthentication> credentials = proxy.credentials();
            request = new TransferRequest(
                    uri,
                    null,
                    new TransferRequest.Proxy(
                            new InetSocketAddress(address, at.getPort()),
                            credentials.map(PasswordAuthentication::getUserName).orElse(null),
                            credentials.map(c -> new String(c.getPassword())).orElse(null)),
                    headers,
                    settings.connectTimeout(),
                    timeout,
                    settings.readTimeout());
        }
        return new ArchiveHop(client().send(request));
    }

    /** Direct unless the egress proxy is configured and does not let this host bypass it. */
    @Override
    public boolean connectsToCheckedAddress(URI uri) {
        return settings.proxy() == null || settings.proxy().bypasses(uri.getHost());
    }

    private InetAddress resolve(String host, String what) throws ConnectException {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            return resolver.resolve(bare)[0];
        } catch (UnknownHostException e) {
            ConnectException failure = new ConnectException("cannot resolve " + what);
            failure.initCause(e);
            throw failure;
        }
    }

    /**
     * Makes the client now (its TLS context with the trust towards origins, its event loops), instead of on the
     * first archive request.
     */
    void prepare() throws IOException {
        client().prepare();
    }

    /** The client, or null while no one has made it. */
    synchronized TransferClient madeClient() {
        return client;
    }

    private synchronized TransferClient client() throws IOException {
        if (closed) {
            throw new IllegalStateException("the origin client is closed");
        }
        if (client == null) {
            try {
                client = new TransferClient(
                        settings.trust().trustManager(),
                        settings.nativeTransport(),
                        ConnectionReuse.DEFAULT,
                        settings.connectTimeout(),
                        settings.requestTimeout());
            } catch (UncheckedIOException e) {
                throw e.getCause();
            } catch (IOException e) {
                throw new IOException("cannot set up TLS towards origins: " + e.getMessage(), e);
            }
            LOG.debug("archives from origins: {}", client.describe());
        }
        return client;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
        }
    }
}
