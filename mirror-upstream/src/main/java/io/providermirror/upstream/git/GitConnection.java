package io.providermirror.upstream.git;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.net.Proxy;
import java.net.URL;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import org.eclipse.jgit.transport.http.HttpConnection;

/**
 * One HTTPS request JGit makes, on the JDK's client, over sockets that connect only to the checked address. What
 * JGit would change about its security is ignored: the trust and host name verification (its {@code
 * http.sslVerify}), redirects (JGit follows them itself, each through the destination check again) and any {@code
 * Authorization} header (the mirror sets the one credential for the one authority it belongs to).
 */
final class GitConnection implements HttpConnection {

    private static final String AUTHORIZATION = "Authorization";

    private final HttpsURLConnection connection;
    private final PacedInputStream.Pace pace;

    /**
     * @param authorization the {@code Authorization} value for this URL's authority, or null
     * @param pace the pace the fetch's response bodies must keep together
     */
    GitConnection(URL url, Proxy proxy, SSLSocketFactory sockets, String authorization, PacedInputStream.Pace pace)
            throws IOException {
        this.pace = pace;
        if (!(url.openConnection(proxy) instanceof HttpsURLConnection https)) {
            throw new IOException("git module sources are fetched over https only: " + url);
        }
        this.connection = https;
        connection.setSSLSocketFactory(sockets);
        connection.setInstanceFollowRedirects(false);
        connection.setUseCaches(false);
        if (authorization != null) {
            connection.setRequestProperty(AUTHORIZATION, authorization);
        }
    }

    @Override
    public int getResponseCode() throws IOException {
        return connection.getResponseCode();
    }

    @Override
    public URL getURL() {
        return connection.getURL();
    }

    @Override
    public String getResponseMessage() throws IOException {
        return connection.getResponseMessage();
    }

    @Override
    public Map<String, List<String>> getHeaderFields() {
        Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        connection.getHeaderFields().forEach((name, values) -> {
            if (name != null) {
                fields.put(name, values);
            }
        });
        return fields;
    }

    @Override
    public List<String> getHeaderFields(String name) {
        List<String> values = new ArrayList<>();
        connection.getHeaderFields().forEach((key, list) -> {
            if (key != null && key.equalsIgnoreCase(name)) {
                values.addAll(list);
            }
        });
        return values;
    }

    @Override
    public String getHeaderField(String name) {
        return connection.getHeaderField(name);
    }

    @Override
    public void setRequestProperty(String key, String value) {
        if (!key.equalsIgnoreCase(AUTHORIZATION)) {
            connection.setRequestProperty(key, value);
        }
    }

    @Override
    public void setRequestMethod(String method) throws ProtocolException {
        connection.setRequestMethod(method);
    }

    @Override
    public String getRequestMethod() {
        return connection.getRequestMethod();
    }

    @Override
    public void setUseCaches(boolean useCaches) {
        // never: the JVM-wide response cache is no place for a module source
    }

    @Override
    public void setConnectTimeout(int timeout) {
        connection.setConnectTimeout(timeout);
    }

    @Override
    public void setReadTimeout(int timeout) {
        connection.setReadTimeout(timeout);
    }

    @Override
    public String getContentType() {
        return connection.getContentType();
    }

    @Override
    public InputStream getInputStream() throws IOException {
        return new PacedInputStream(connection.getInputStream(), pace, connection.getURL());
    }

    @Override
    public int getContentLength() {
        return connection.getContentLength();
    }

    @Override
    public void setInstanceFollowRedirects(boolean followRedirects) {
        // never: JGit follows redirects itself, through the factory and so through the destination check
    }

    @Override
    public void setDoOutput(boolean doOutput) {
        connection.setDoOutput(doOutput);
    }

    @Override
    public void setFixedLengthStreamingMode(int contentLength) {
        connection.setFixedLengthStreamingMode(contentLength);
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return connection.getOutputStream();
    }

    @Override
    public void setChunkedStreamingMode(int chunkLength) {
        connection.setChunkedStreamingMode(chunkLength);
    }

    @Override
    public boolean usingProxy() {
        return connection.usingProxy();
    }

    @Override
    public void connect() throws IOException {
        connection.connect();
    }

    @Override
    public void configure(KeyManager[] keys, TrustManager[] trust, SecureRandom random) {
        // the mirror's trust, set when the connection was made, is the only one
    }

    @Override
    public void setHostnameVerifier(HostnameVerifier verifier) {
        // the JDK's strict verification stays
    }
}
