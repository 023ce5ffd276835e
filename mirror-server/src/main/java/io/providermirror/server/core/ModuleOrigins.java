package io.providermirror.server.core;

import io.providermirror.upstream.ModuleOrigin;

/**
 * The module origin of each host, as {@link Origins} gives providers': the module core asks once per operation and
 * then talks to that {@link ModuleOrigin} alone. {@link ConfiguredOrigins#modules} is the mirror's.
 */
@FunctionalInterface
public interface ModuleOrigins {

    /** The module origin that answers for {@code hostname}. */
    ModuleOrigin of(String hostname);
}
