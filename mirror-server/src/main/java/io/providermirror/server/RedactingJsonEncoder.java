package io.providermirror.server;

/**
 * The former name of {@link io.providermirror.server.logging.RedactingJsonEncoder}, kept so that a logging configuration written
 * for an earlier version (as its README showed) keeps escaping and redacting what it logs. Name the new class.
 *
 * @deprecated since the server was split into packages; use {@link io.providermirror.server.logging.RedactingJsonEncoder}
 */
@Deprecated
public final class RedactingJsonEncoder extends io.providermirror.server.logging.RedactingJsonEncoder {}
