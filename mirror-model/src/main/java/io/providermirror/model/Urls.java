package io.providermirror.model;

import java.net.URI;

/**
 * URLs as the mirror may show them in text: logs, error bodies, the status page. Download URLs are often
 * pre-signed ({@code ?X-Amz-Signature=...}, {@code ?token=...}) and open a file to whoever holds them, and a
 * URL may carry {@code user:password@}; so the query, the fragment and any user information are left out,
 * and what remains (scheme, host, port, path) still tells an operator which request failed.
 */
public final class Urls {

    /** Stands where a query string was. */
    public static final String REDACTED_QUERY = "?[redacted]";

    /** Marks an absolute URL in text: {@code scheme://}. */
    private static final String SEPARATOR = "://";

    private Urls() {}

    /** {@code uri} without its query, fragment and user information. */
    public static String redacted(URI uri) {
        return uri == null ? "null" : redactedUrl(uri.toString());
    }

    /**
     * {@code text} with every absolute URL in it {@linkplain #redacted(URI) redacted}; null stays null.
     *
     * <p>An absolute URL in text is a scheme (an ASCII letter, then letters, digits, {@code +}, {@code .} or
     * {@code -}), {@code ://} and at least one character more; it ends at white space or at a character that cannot
     * be part of a URL and commonly closes one in prose or markup (quotes, angle brackets, a backtick), or starts an
     * escape in JSON (a backslash), so redacting inside a JSON document keeps it valid. Whatever stands before the
     * scheme, even a letter of another script or a digit, does not hide the URL. Found a character at a time, from
     * each {@code ://}: the access log has a URL on nearly every line (the CLI's {@code User-Agent} names its web
     * site), and a regular expression tried at every letter of the line cost more than the rest of the line.
     */
    public static String redactedIn(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder out = null;
        int copied = 0;
        int separator = text.indexOf(SEPARATOR);
        while (separator >= 0) {
            int start = separator;
            while (start > 0 && isSchemeCharacter(text.charAt(start - 1))) {
                start--;
            }
            while (start < separator && !isAsciiLetter(text.charAt(start))) {
                start++;
            }
            if (start == separator) {
                // No scheme before it: not a URL, and what follows is not looked at (a text of nothing but "://"
                // would be read once for each of them).
                separator = text.indexOf(SEPARATOR, separator + 1);
                continue;
            }
            int end = separator + SEPARATOR.length();
            while (end < text.length() && isUrlCharacter(text.charAt(end))) {
                end++;
            }
            if (end == separator + SEPARATOR.length()) {
                // Nothing after it: not a URL.
                separator = text.indexOf(SEPARATOR, separator + 1);
                continue;
            }
            String url = text.substring(start, end);
            String redacted = redactedUrl(url);
            if (!redacted.equals(url)) {
                if (out == null) {
                    out = new StringBuilder(text.length());
                }
                out.append(text, copied, start).append(redacted);
                copied = end;
            }
            separator = text.indexOf(SEPARATOR, end);
        }
        return out == null ? text : out.append(text, copied, text.length()).toString();
    }

    private static boolean isAsciiLetter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    private static boolean isSchemeCharacter(char c) {
        return isAsciiLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-';
    }

    /**
     * Whether {@code c} may be part of a URL in text: anything but white space (space, tab, line feed, vertical tab,
     * form feed, carriage return) and {@code " ' < > ` \}.
     */
    private static boolean isUrlCharacter(char c) {
        return switch (c) {
            case ' ', '\t', '\n', '\u000B', '\f', '\r', '"', '\'', '<', '>', '`', '\\' -> false;
            default -> true;
        };
    }

    private static String redactedUrl(String url) {
        int schemeEnd = url.indexOf(SEPARATOR);
        int authorityStart = schemeEnd < 0 ? 0 : schemeEnd + SEPARATOR.length();
        int end = url.length();
        int query = url.indexOf('?', authorityStart);
        int fragment = url.indexOf('#', authorityStart);
        boolean hadQuery = query >= 0 && (fragment < 0 || query < fragment);
        if (query >= 0) {
            end = Math.min(end, query);
        }
        if (fragment >= 0) {
            end = Math.min(end, fragment);
        }
        StringBuilder out = new StringBuilder(end + REDACTED_QUERY.length());
        appendWithoutUserInformation(out, url, authorityStart, end);
        if (hadQuery) {
            out.append(REDACTED_QUERY);
        }
        return out.toString();
    }

    /**
     * Appends {@code url} up to {@code to} without user information: that of the authority at {@code authority}
     * (up to the next {@code /}, its text up to its last {@code @}), and of every URL inside its path
     * ({@code .../https://user:password@host/...}), each {@code ://} there starting an authority of its own.
     */
    private static void appendWithoutUserInformation(StringBuilder out, String url, int authority, int to) {
        int copied = 0;
        while (true) {
            int at = -1;
            int authorityEnd = authority;
            while (authorityEnd < to && url.charAt(authorityEnd) != '/') {
                if (url.charAt(authorityEnd) == '@') {
                    at = authorityEnd;
                }
                authorityEnd++;
            }
            if (at >= 0) {
                out.append(url, copied, authority);
                copied = at + 1;
            }
            // From the authority, not its end: in "a://b://c" the next separator starts one before that end.
            int separator = url.indexOf(SEPARATOR, authority);
            if (separator < 0 || separator + SEPARATOR.length() > to) {
                break;
            }
            authority = separator + SEPARATOR.length();
        }
        out.append(url, copied, to);
    }
}
