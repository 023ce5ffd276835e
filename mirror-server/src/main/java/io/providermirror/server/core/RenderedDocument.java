package io.providermirror.server.core;

/** A JSON document rendered once and served as these bytes to every request until it changes. */
public record RenderedDocument(byte[] json) {}
