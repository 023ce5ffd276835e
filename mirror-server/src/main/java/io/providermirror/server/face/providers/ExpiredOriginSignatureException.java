package io.providermirror.server.face.providers;

import io.providermirror.server.core.Refusal;

/**
 * The origin's signature of a package the mirror verified has expired since (as the CLI judges dates), so the
 * providers.v1 face does not offer it: the CLI checks that signature itself and would refuse it with a less helpful
 * error. The message names the package, what expired when, and says to install it through the network mirror
 * protocol, where the mirror vouches for what it verified. Answered 409.
 */
public final class ExpiredOriginSignatureException extends RuntimeException implements Refusal {

    private static final long serialVersionUID = 1L;

    public ExpiredOriginSignatureException(String message) {
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
