package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the full module registry API says of one module version in a list, a search or its details, as the mirror
 * read it from an origin: each field checked for its type, a field the origin left out (or sent as another type)
 * empty. The address and version are what the answer's {@code namespace}, {@code name}, {@code provider} and
 * {@code version} say, validated as the registry's names and a semantic version.
 *
 * @param publishedAt when the origin published this version ({@code published_at}), what release-age rules read
 * @param downloads   the origin's download count: known only while the origin answers, never kept in the cache
 */
public record ModuleFacts(
        ModuleAddress address,
        ProviderVersion version,
        Optional<String> owner,
        Optional<String> description,
        Optional<Instant> publishedAt,
        OptionalLong downloads,
        Optional<Boolean> verified) {

    /** What the mirror knows of a version from its version list alone. */
    static ModuleFacts bare(ModuleAddress address, ProviderVersion version) {
        return new ModuleFacts(
                address,
                version,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                Optional.empty());
    }

    /** These facts as the cache keeps them: without the download count, which only the origin knows now. */
    ModuleFacts kept() {
        return new ModuleFacts(address, version, owner, description, publishedAt, OptionalLong.empty(), verified);
    }
}
