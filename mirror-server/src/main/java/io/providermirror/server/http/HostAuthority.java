package io.providermirror.server.http;

/**
 * Whether a request's {@code Host} header is an authority the mirror may write into the URLs of its answers (a
 * module download's {@code X-Terraform-Get}, the registry discovery document, the module registry API's links, the
 * status page): a host name of 1 to 253 letters, digits, dots and hyphens, or an IP literal in brackets of 2 to 45
 * hexadecimal digits, colons and dots, either followed by an optional port of 1 to 5 digits. Nothing else passes:
 * no path, user information, space, control character or non-ASCII letter. Checked a character at a time, as the
 * cache keys are: it runs on every module download, where a regular expression took 2% of the answer's CPU.
 */
final class HostAuthority {

    private static final int MAX_NAME = 253;
    private static final int MIN_LITERAL = 2;
    private static final int MAX_LITERAL = 45;
    private static final int MAX_PORT_DIGITS = 5;

    private HostAuthority() {}

    /** Whether {@code host} (a {@code Host} header as received, or null when there was none) passes. */
    static boolean isValid(String host) {
        if (host == null || host.isEmpty()) {
            return false;
        }
        int end;
        if (host.charAt(0) == '[') {
            int close = host.indexOf(']');
            int inside = close - 1;
            if (close < 0 || inside < MIN_LITERAL || inside > MAX_LITERAL) {
                return false;
            }
            for (int i = 1; i < close; i++) {
                if (!isLiteralChar(host.charAt(i))) {
                    return false;
                }
            }
            end = close + 1;
        } else {
            end = 0;
            while (end < host.length() && isNameChar(host.charAt(end))) {
                end++;
            }
            if (end == 0 || end > MAX_NAME) {
                return false;
            }
        }
        return end == host.length() || isPort(host, end);
    }

    /** {@code host} when it passes, else null. */
    static String checked(String host) {
        return isValid(host) ? host : null;
    }

    /** Whether {@code host} from {@code colon} on is {@code :} and 1 to 5 digits. */
    private static boolean isPort(String host, int colon) {
        int digits = host.length() - colon - 1;
        if (host.charAt(colon) != ':' || digits < 1 || digits > MAX_PORT_DIGITS) {
            return false;
        }
        for (int i = colon + 1; i < host.length(); i++) {
            if (!isDigit(host.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isNameChar(char c) {
        return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '-';
    }

    private static boolean isLiteralChar(char c) {
        return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
