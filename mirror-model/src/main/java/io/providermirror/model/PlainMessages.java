package io.providermirror.model;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes a failure's message one a person reads without the JDK's internals: no class names ({@code
 * java.net.ConnectException}, {@code sun.security...SunCertPathBuilderException}), the JDK's PKIX wording said in
 * plain words, and a prefix that wrapping repeated ({@code the download of X: the download of X: ...}) said once.
 * Every origin failure and every verification failure goes through {@link #of}, so every log line, 502 body and
 * status-page row does.
 */
public final class PlainMessages {

    /** How the JDK says an origin's certificate chains to no trusted CA, with the class names it carries. */
    private static final Pattern PKIX = Pattern.compile(
            "PKIX path (?:building|validation) failed:?[^()]*?(?:unable to find valid certification path to"
                    + " requested target|$)");

    /** A fully qualified exception class name, with the ": " that introduces its message. */
    private static final Pattern CLASS_NAME =
            Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+([A-Z][A-Za-z0-9_$]*(?:Exception|Error))\\b(: ?)?");

    /** The same "what: " said twice or more in a row. */
    private static final Pattern REPEATED_PREFIX = Pattern.compile("(?<![^\\s(])((?:[^:()]|:(?! )){6,}?: )\\1+");

    /** What an exception that carried no message of its own means, for the few an origin request meets. */
    private static final Map<String, String> MEANINGS = Map.of(
            "ConnectException", "connection refused",
            "UnknownHostException", "unknown host",
            "NoRouteToHostException", "no route to host",
            "SocketTimeoutException", "timed out",
            "ClosedChannelException", "the connection was closed",
            "EOFException", "the connection was closed before the answer ended",
            "SSLHandshakeException", "the TLS handshake failed");

    private PlainMessages() {}

    /**
     * {@code message} as a person may read it: its URLs {@linkplain Urls#redactedIn redacted} (pre-signed query
     * strings are credentials) and {@linkplain #plain said without the JDK's internals}; null stays null.
     */
    public static String of(String message) {
        return plain(Urls.redactedIn(message));
    }

    /** {@code message} without the JDK's internals; null stays null. */
    public static String plain(String message) {
        if (message == null) {
            return null;
        }
        String plain = PKIX.matcher(message).replaceAll("its certificate is not issued by a CA the mirror trusts");
        Matcher names = CLASS_NAME.matcher(plain);
        StringBuilder out = new StringBuilder();
        while (names.find()) {
            // "Class: message" keeps the message; a bare class name becomes what it means.
            String replacement =
                    names.group(2) != null ? "" : MEANINGS.getOrDefault(names.group(1), words(names.group(1)));
            names.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        names.appendTail(out);
        return REPEATED_PREFIX.matcher(out).replaceAll("$1");
    }

    /** {@code HttpTimeoutException} as "http timeout". */
    private static String words(String simpleName) {
        String stem = simpleName.replaceAll("(?:Exception|Error)$", "");
        return stem.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT);
    }
}
