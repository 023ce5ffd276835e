package io.providermirror.cache;

import java.time.Instant;

/** A persisted metadata document and when it was stored. */
public record StoredDocument(byte[] content, Instant storedAt) {}
