package io.providermirror.server.core;

/** The mirror's policy refuses what was asked for; the message names the rule. Answered 404. */
public final class PolicyDeniedException extends RuntimeException implements Refusal {

    private static final long serialVersionUID = 1L;

    public PolicyDeniedException(String message) {
        super(message, null, false, false);
    }

    @Override
    public Kind kind() {
        return Kind.NOT_FOUND;
    }

    @Override
    public String reason() {
        return "refused by this mirror's policy: " + getMessage();
    }
}
