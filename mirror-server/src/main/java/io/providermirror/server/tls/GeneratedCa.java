package io.providermirror.server.tls;

import io.providermirror.upstream.verify.PackageHashes;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The CA the mirror generated for itself, as the status page and the banner offer it: the PEM served at {@code
 * /ca.pem}, its SHA-256 fingerprint (to compare with the file on the server, since the download itself cannot be
 * trusted yet), the only names and addresses it can sign for (its name constraints), until when, and how to make a
 * machine or a shell trust it.
 */
public record GeneratedCa(byte[] pem, String fingerprint, List<String> signsFor, Instant notAfter) {

    /** Where the certificate is served. */
    static final String PATH = "/ca.pem";

    private static final DateTimeFormatter DAY = DateTimeFormatter.ISO_LOCAL_DATE.withZone(ZoneOffset.UTC);

    public GeneratedCa {
        pem = pem.clone();
        signsFor = List.copyOf(signsFor);
    }

    public static GeneratedCa of(byte[] pem) {
        try {
            X509Certificate certificate = (X509Certificate)
                    CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
            return new GeneratedCa(
                    pem,
                    fingerprint(certificate),
                    CertificateNames.permittedBy(certificate)
                            .map(CertificateNames::display)
                            .orElse(List.of()),
                    certificate.getNotAfter().toInstant());
        } catch (CertificateException e) {
            throw new IllegalArgumentException("the generated CA certificate cannot be read: " + e.getMessage(), e);
        }
    }

    /** A certificate's SHA-256 fingerprint as {@code openssl x509 -fingerprint -sha256} prints it. */
    static String fingerprint(X509Certificate certificate) {
        try {
            byte[] digest = PackageHashes.sha256().digest(certificate.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("the CA certificate cannot be encoded: " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] pem() {
        return pem.clone();
    }

    /** What the CA can sign, in a sentence: its names and addresses, and its last day. */
    public String scope() {
        return "it can sign certificates only for " + String.join(", ", signsFor) + ", until " + DAY.format(notAfter)
                + "; for no other site";
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
                .append("</code></p>")
                .append("<p id=\"ca-scope\">What trusting it allows: this CA can sign certificates only for <code>")
                .append(escape(String.join(", ", signsFor)))
                .append("</code> (its name constraints, which Terraform, OpenTofu and other clients enforce), ")
                .append("only for servers, until ")
                .append(DAY.format(notAfter))
                .append(". It cannot sign for any other site. Its private key stays on the mirror's host, ")
                .append("outside the cache directory.</p><ul class=\"trust\">")
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

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
