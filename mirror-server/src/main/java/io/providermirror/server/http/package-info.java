/**
 * The HTTPS front end, the only package that uses Netty: the pipeline, strict route parsing, the handler
 * that maps core answers and failures to responses, and the access log.
 */
package io.providermirror.server.http;
