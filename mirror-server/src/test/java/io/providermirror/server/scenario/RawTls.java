package io.providermirror.server.scenario;

import io.providermirror.server.app.MirrorApplication;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import javax.net.ssl.SSLSocket;

/** A TLS connection to a mirror for tests that write requests byte by byte and read answers as they come. */
final class RawTls {

    private RawTls() {}

    /** A connection to {@code mirror}, trusting its generated CA, with {@code timeoutMillis} for each read. */
    static SSLSocket connect(MirrorApplication mirror, int timeoutMillis) throws Exception {
        SSLSocket socket = (SSLSocket)
                TrustedCertificates.sslContext(mirror.generatedCaFile().orElseThrow())
                        .getSocketFactory()
                        .createSocket("127.0.0.1", mirror.port());
        socket.setSoTimeout(timeoutMillis);
        return socket;
    }

    /** An answer's status line and headers, read byte by byte up to the empty line. */
    static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int next = in.read();
            if (next == -1) {
                throw new IOException("the connection ended within the answer's head: " + head);
            }
            head.append((char) next);
        }
        return head.toString();
    }

    /** Writes {@code body} a KiB at a time, flushing each, as a client still sending its body after an answer. */
    static void writeInPieces(OutputStream out, byte[] body) throws IOException {
        for (int at = 0; at < body.length; at += 1024) {
            out.write(body, at, Math.min(1024, body.length - at));
            out.flush();
        }
    }

    /** The Content-Length of an answer's {@link #head}. */
    static int contentLength(String head) {
        return Integer.parseInt(head.replaceAll("(?is).*content-length: *(\\d+).*", "$1"));
    }
}
