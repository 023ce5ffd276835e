package io.providermirror.server;

/**
 * The former name of {@link io.providermirror.server.logging.EscapedMessageConverter}, kept so that a logging configuration written
 * for an earlier version (as its README showed) keeps escaping and redacting what it logs. Name the new class.
 *
 * @deprecated since the server was split into packages; use {@link io.providermirror.server.logging.EscapedMessageConverter}
 */
@Deprecated
public final class EscapedMessageConverter extends io.providermirror.server.logging.EscapedMessageConverter {}
