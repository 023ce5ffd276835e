package io.providermirror.server.http;

/** Test access to the access log's redaction. */
public final class ExchangeLogs {

    private ExchangeLogs() {}

    public static String redacted(String uri) {
        return ExchangeLog.redacted(uri);
    }
}
