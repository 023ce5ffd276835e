package io.providermirror.server.face.providers;

import io.providermirror.server.core.Refusal;

/**
 * A package reached the mirror without its origin's signature (through a parent network mirror, or from a host
 * allowed to publish unsigned releases), so the providers.v1 face cannot offer it: the CLI would have nothing to
 * verify. The message names the package and says to install it through the network mirror protocol. Answered 409.
 */
public final class NoOriginSignatureException extends RuntimeException implements Refusal {

    private static final long serialVersionUID = 1L;

    public NoOriginSignatureException(String message) {
        super(message, null, false, false);
    }

    @Override
    public Kind kind() {
        return Kind.CONFLICT;
    }

    @Override
    public String reason() {
        return getMessage();
    }
}
