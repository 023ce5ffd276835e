package io.providermirror.server.core;

import io.providermirror.upstream.Origin;

/**
 * The origin of each host: the pull-through core asks once per operation and then talks to that {@link Origin}
 * alone. {@link ConfiguredOrigins} is the mirror's; tests give a fake.
 */
@FunctionalInterface
public interface Origins {

    /** The origin that answers for {@code hostname}. */
    Origin of(String hostname);
}
