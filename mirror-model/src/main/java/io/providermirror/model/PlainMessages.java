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

    /**
     * A fully qualified exception class name, with the ": " that introduces its message. Its package is one run of
     * a character class, never a repeated group: the JDK's matcher recurses once per repetition of a group, and an
     * origin's text of a few thousand "a." overflowed the stack.
     */
    private static final Pattern CLASS_NAME =
            Pattern.compile("\\b[a-z][a-z0-9_.]*\\.([A-Z][A-Za-z0-9_$]*(?:Exception|Error))\\b(: ?)?");

    /** The shortest "what" of a "what: " said twice in a row that is said once instead. */
    private static final int MIN_PREFIX = 6;

    /**
     * The longest message said: what an origin or a key sends can end up in one (a list of key IDs, say), and a
     * person reads no more; the rest is counted.
     */
    static final int MAX_CHARS = 4096;

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
        String said = message.length() <= MAX_CHARS
                ? message
                : message.substring(0, MAX_CHARS) + "… (" + (message.length() - MAX_CHARS) + " characters more)";
        String plain = PKIX.matcher(said).replaceAll("its certificate is not issued by a CA the mirror trusts");
        Matcher names = CLASS_NAME.matcher(plain);
        StringBuilder out = new StringBuilder();
        while (names.find()) {
            // "Class: message" keeps the message; a bare class name becomes what it means.
            String replacement =
                    names.group(2) != null ? "" : MEANINGS.getOrDefault(names.group(1), words(names.group(1)));
            names.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        names.appendTail(out);
        return sayOnce(out);
    }

    /**
     * {@code text} with each "what: " said twice or more in a row said once: a "what" of at least
     * {@link #MIN_PREFIX} characters without brackets or ": ", at the start or after a space or an opening bracket.
     * A loop (over at most {@link #MAX_CHARS} characters and what replaced class names), not a regular expression:
     * the JDK's matcher recursed once per character of such a "what", and a few thousand characters without a colon
     * overflowed the stack.
     */
    private static String sayOnce(CharSequence said) {
        String text = said.toString();
        StringBuilder out = new StringBuilder(text.length());
        int at = 0;
        while (at < text.length()) {
            int end = at == 0 || Character.isWhitespace(text.charAt(at - 1)) || text.charAt(at - 1) == '('
                    ? prefixEnd(text, at)
                    : -1;
            if (end > 0 && text.startsWith(text.substring(at, end), end)) {
                String prefix = text.substring(at, end);
                out.append(prefix);
                at = end;
                while (text.startsWith(prefix, at)) {
                    at += prefix.length();
                }
            } else {
                out.append(text.charAt(at));
                at++;
            }
        }
        return out.toString();
    }

    /** Where the "what: " starting at {@code from} ends (after its ": "), or -1 when none does. */
    private static int prefixEnd(String text, int from) {
        for (int at = from; at < text.length(); at++) {
            char c = text.charAt(at);
            if (c == '(' || c == ')') {
                return -1;
            }
            if (c == ':' && at + 1 < text.length() && text.charAt(at + 1) == ' ') {
                return at - from >= MIN_PREFIX ? at + 2 : -1;
            }
        }
        return -1;
    }

    /** {@code HttpTimeoutException} as "http timeout". */
    private static String words(String simpleName) {
        String stem = simpleName.replaceAll("(?:Exception|Error)$", "");
        return stem.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT);
    }
}
