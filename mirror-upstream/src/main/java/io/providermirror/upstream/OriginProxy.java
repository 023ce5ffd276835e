package io.providermirror.upstream;

import java.io.IOException;
import java.math.BigInteger;
import java.net.Authenticator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The HTTP proxy origin traffic goes through (HTTPS tunnelled with {@code CONNECT}), with the hosts that
 * bypass it in {@code NO_PROXY} syntax: {@code *}, host names (which also match their subdomains),
 * {@code .domain} suffixes, IP addresses and CIDR ranges; a {@code :port} on an entry is ignored. Loopback is
 * not special: it is proxied unless listed.
 */
public final class OriginProxy extends ProxySelector {

    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|\\[?[0-9a-fA-F:]+]?");

    private final URI url;
    private final Proxy proxy;
    private final List<String> noProxy;
    private final PasswordAuthentication credentials;

    private OriginProxy(URI url, List<String> noProxy, PasswordAuthentication credentials) {
        this.url = url;
        this.proxy = new Proxy(
                Proxy.Type.HTTP,
                InetSocketAddress.createUnresolved(url.getHost(), url.getPort() == -1 ? 80 : url.getPort()));
        this.noProxy = noProxy.stream()
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(s -> s.toLowerCase(Locale.ROOT))
                .toList();
        this.credentials = credentials;
    }

    /**
     * A proxy at {@code url} ({@code http://[user:password@]host[:port]}); {@code username}/{@code password},
     * when given, win over the URL's own.
     */
    public static OriginProxy of(URI url, List<String> noProxy, String username, char[] password) {
        if (url.getScheme() == null || !url.getScheme().equalsIgnoreCase("http") || url.getHost() == null) {
            throw new IllegalArgumentException("proxy: '" + url + "' (expected: http://host:port)");
        }
        PasswordAuthentication credentials = null;
        if (username != null) {
            credentials = new PasswordAuthentication(username, password == null ? new char[0] : password);
        } else if (url.getRawUserInfo() != null) {
            String[] parts = url.getRawUserInfo().split(":", 2);
            credentials = new PasswordAuthentication(
                    URLDecoder.decode(parts[0], StandardCharsets.UTF_8),
                    parts.length > 1
                            ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8)
                                    .toCharArray()
                            : new char[0]);
        }
        return new OriginProxy(url, noProxy, credentials);
    }

    /**
     * The proxy the usual environment variables name: {@code HTTPS_PROXY} (or {@code https_proxy}, then
     * {@code HTTP_PROXY}/{@code http_proxy}) and {@code NO_PROXY}/{@code no_proxy}; empty when none is set.
     */
    public static Optional<OriginProxy> fromEnvironment(Map<String, String> environment) {
        for (String name : new String[] {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"}) {
            String value = environment.get(name);
            if (value != null && !value.isBlank()) {
                URI url = URI.create(value.contains("://") ? value.trim() : "http://" + value.trim());
                try {
                    return Optional.of(of(url, noProxy(environment), null, null));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
                }
            }
        }
        return Optional.empty();
    }

    /** The {@code NO_PROXY} list of the environment. */
    public static List<String> noProxy(Map<String, String> environment) {
        String value = environment.getOrDefault("NO_PROXY", environment.getOrDefault("no_proxy", ""));
        return List.of(value.split(","));
    }

    /** This proxy, with its credentials, bypassed for {@code noProxy} instead. */
    public OriginProxy withNoProxy(List<String> noProxy) {
        return new OriginProxy(url, noProxy, credentials);
    }

    /** The proxy's URL without credentials, for logs and errors. */
    public String describe() {
        return "http://" + url.getHost() + (url.getPort() == -1 ? "" : ":" + url.getPort());
    }

    public Optional<String> username() {
        return Optional.ofNullable(credentials).map(PasswordAuthentication::getUserName);
    }

    public List<String> bypassed() {
        return noProxy;
    }

    /** The proxy's host and port, not resolved. */
    InetSocketAddress address() {
        return (InetSocketAddress) proxy.address();
    }

    /** The basic credentials sent to the proxy, if any. */
    Optional<PasswordAuthentication> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** Answers the proxy's 407 with its credentials; nothing else. */
    public Optional<Authenticator> authenticator() {
        if (credentials == null) {
            return Optional.empty();
        }
        return Optional.of(new Authenticator() {
            @Override
            protected PasswordAuthentication getPasswordAuthentication() {
                return getRequestorType() == RequestorType.PROXY ? credentials : null;
            }
        });
    }

    @Override
    public List<Proxy> select(URI uri) {
        return bypasses(uri.getHost()) ? List.of(Proxy.NO_PROXY) : List.of(proxy);
    }

    @Override
    public void connectFailed(URI uri, SocketAddress address, IOException failure) {
        // The client reports the failure to its caller; there is no other proxy to try.
    }

    /** True when requests to {@code host} go directly rather than through the proxy. */
    public boolean bypasses(String host) {
        if (host == null) {
            return true;
        }
        String name = host.toLowerCase(Locale.ROOT);
        String bare = name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
        for (String entry : noProxy) {
            String rule =
                    entry.startsWith("[") ? entry.substring(1, entry.indexOf(']')) : entry.replaceFirst(":[0-9]+$", "");
            if (rule.equals("*")) {
                return true;
            }
            if (rule.contains("/")) {
                if (inRange(bare, rule)) {
                    return true;
                }
                continue;
            }
            String suffix = rule.startsWith(".") ? rule : "." + rule;
            if (bare.equals(rule.startsWith(".") ? rule.substring(1) : rule) || bare.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean inRange(String host, String cidr) {
        if (!IP_LITERAL.matcher(host).matches()) {
            return false;
        }
        try {
            String[] parts = cidr.split("/", 2);
            byte[] network = InetAddress.getByName(parts[0]).getAddress();
            byte[] address = InetAddress.getByName(host).getAddress();
            int bits = Integer.parseInt(parts[1]);
            if (network.length != address.length || bits < 0 || bits > network.length * 8) {
                return false;
            }
            BigInteger mask = BigInteger.ONE
                    .shiftLeft(network.length * 8)
                    .subtract(BigInteger.ONE)
                    .shiftRight(bits)
                    .not();
            return new BigInteger(1, network).and(mask).equals(new BigInteger(1, address).and(mask));
        } catch (UnknownHostException | NumberFormatException e) {
            return false;
        }
    }
}
