/**
 * Logging set-up: the logback configuration chosen at start-up, and converters and encoders that escape
 * control characters and redact secrets in every line.
 */
package io.providermirror.server.logging;
