package io.providermirror.upstream.git;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import javax.net.ssl.SSLSocketFactory;

/**
 * The sockets of git's connections to one host and port: the TCP connection goes to the address the destination
 * check allowed (whatever the JDK's client resolved the name to meanwhile), and TLS runs over it for the host
 * name, with the mirror's trust. The JDK's HTTPS client asks for an unconnected socket, connects it, then layers
 * TLS over it; every other way of making a socket is refused, so none can connect by name.
 */
final class CheckedAddressSockets extends SSLSocketFactory {

    private final SSLSocketFactory tls;
    private final String host;
    private final int port;
    private final InetAddress address;

    /** @param address the checked address; null to connect by name (a host configured for the origin) */
    CheckedAddressSockets(SSLSocketFactory tls, String host, int port, InetAddress address) {
        this.tls = tls;
        this.host = host;
        this.port = port;
        this.address = address;
    }

    @Override
    public Socket createSocket() {
        return new Socket() {
            @Override
            public void connect(SocketAddress endpoint, int timeout) throws IOException {
                if (!(endpoint instanceof InetSocketAddress target) || target.getPort() != port) {
                    throw new SocketException("git may connect to " + host + ":" + port + " only, not " + endpoint);
                }
                super.connect(address == null ? target : new InetSocketAddress(address, port), timeout);
            }
        };
    }

    @Override
    public Socket createSocket(Socket connected, String tlsHost, int tlsPort, boolean autoClose) throws IOException {
        if (!bare(tlsHost).equalsIgnoreCase(bare(host)) || tlsPort != port) {
            throw new SocketException("git may speak TLS to " + host + ":" + port + " only, not " + tlsHost);
        }
        return tls.createSocket(connected, tlsHost, tlsPort, autoClose);
    }

    @Override
    public Socket createSocket(String unused, int unusedPort) throws IOException {
        throw byName();
    }

    @Override
    public Socket createSocket(String unused, int unusedPort, InetAddress local, int localPort) throws IOException {
        throw byName();
    }

    @Override
    public Socket createSocket(InetAddress unused, int unusedPort) throws IOException {
        throw byName();
    }

    @Override
    public Socket createSocket(InetAddress unused, int unusedPort, InetAddress local, int localPort)
            throws IOException {
        throw byName();
    }

    /** An IPv6 literal without its brackets, as URLs and the JDK's client may spell it either way. */
    private static String bare(String name) {
        return name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
    }

    private static SocketException byName() {
        return new SocketException("git connections are made to the checked address only");
    }

    @Override
    public String[] getDefaultCipherSuites() {
        return tls.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return tls.getSupportedCipherSuites();
    }
}
