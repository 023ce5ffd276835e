package io.providermirror.server.http;

import io.providermirror.upstream.Platform;
import io.providermirror.upstream.ProviderAddress;
import io.providermirror.upstream.ProviderVersion;

/** What a request path asks for. */
sealed interface Route {

    /** The human-readable page at {@code /} and at the mirror's base URL. */
    record Home() implements Route {
    }

    /** {@code :hostname/:namespace/:type/index.json}. */
    record VersionIndex(ProviderAddress address) implements Route {
    }

    /** {@code :hostname/:namespace/:type/:version.json}. */
    record VersionDocument(ProviderAddress address, ProviderVersion version) implements Route {
    }

    /** {@code :hostname/:namespace/:type/terraform-provider-:type_:version_:os_:arch.zip}. */
    record Archive(ProviderAddress address, ProviderVersion version, Platform platform) implements Route {
    }

    /** A path that names nothing here: 404 when it is outside the mirror's paths, 400 when it is malformed. */
    record Invalid(int status, String message) implements Route {
    }
}
