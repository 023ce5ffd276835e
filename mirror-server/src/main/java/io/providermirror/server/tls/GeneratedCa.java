package io.providermirror.server.tls;

import io.providermirror.upstream.PackageHashes;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The CA the mirror generated for itself, as the status page offers it: the PEM served at {@code /ca.pem}, its
 * SHA-256 fingerprint (to compare with the file on the server, since the download itself cannot be trusted yet),
 * and how to make a machine or a shell trust it.
 */
public record GeneratedCa(byte[] pem, String fingerprint) {

    /** Where the certificate is served. */
    static final String PATH = "/ca.pem";

    public static GeneratedCa of(byte[] pem) {
        try {
            X509Certificate certificate = (X509Certificate)
                    CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
            byte[] digest = PackageHashes.sha256().digest(certificate.getEncoded());
            return new GeneratedCa(
                    pem.clone(), HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest));
        } catch (CertificateException e) {
            throw new IllegalArgumentException("the generated CA certificate cannot be read: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] pem() {
        return pem.clone();
    }

    /** The status page's section on trusting this CA. */
    public void instructions(StringBuilder html) {
        html.append("<section id=\"trust\"><h2>Trust this mirror's certificate</h2>")
                .append("<p>This mirror made its own certificate authority. Clients must trust it: download ")
                .append("<a href=\"")
                .append(PATH)
                .append("\" download=\"provider-mirror-ca.pem\"><code>")
                .append(PATH)
                .append("</code></a> and check its SHA-256 fingerprint against the one the mirror's operator sees ")
                .append("(<code>openssl x509 -in provider-mirror-ca.pem -noout -fingerprint -sha256</code>):</p>")
                .append("<p><code id=\"ca-fingerprint\" class=\"small\">")
                .append(fingerprint.toUpperCase(Locale.ROOT))
                .append("</code></p><ul class=\"trust\">")
                .append("<li>Debian, Ubuntu: <code>sudo cp provider-mirror-ca.pem ")
                .append(
                        "/usr/local/share/ca-certificates/provider-mirror.crt &amp;&amp; sudo update-ca-certificates</code></li>")
                .append("<li>macOS: <code>sudo security add-trusted-cert -d -r trustRoot -k ")
                .append("/Library/Keychains/System.keychain provider-mirror-ca.pem</code></li>")
                .append(
                        "<li>One shell, for a quick try: <code>export SSL_CERT_FILE=$PWD/provider-mirror-ca.pem</code> ")
                .append(
                        "<span class=\"muted\">(on Linux this replaces the default CA bundle for that shell)</span></li>")
                .append("</ul></section>\n");
    }
}
