package io.providermirror.server.warm;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.VersionConstraints;

/** A registry module to pre-seed, the versions wanted, and where the wish came from (for messages). */
public record ModuleRequest(ModuleAddress address, VersionConstraints constraints, String source) {}
