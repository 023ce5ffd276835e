package io.providermirror.server.warm;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.VersionConstraints;

/** A provider to pre-seed, the versions wanted, and where the wish came from (for messages). */
public record ProviderRequest(ProviderAddress address, VersionConstraints constraints, String source) {}
