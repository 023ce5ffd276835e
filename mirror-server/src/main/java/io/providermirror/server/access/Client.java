package io.providermirror.server.access;

/**
 * Who a request comes from, as access control decided it: a configured client's name and scope, or {@link
 * #ANONYMOUS} (no token, or access control off). The name goes into the access log, the metrics and the operator
 * API; the token never does.
 */
public record Client(String name, ClientScope scope) {

    /** A request without an accepted token, or any request while access control is off. */
    public static final Client ANONYMOUS = new Client("anonymous", ClientScope.EVERYTHING);
}
