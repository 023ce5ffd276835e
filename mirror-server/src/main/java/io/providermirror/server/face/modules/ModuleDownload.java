package io.providermirror.server.face.modules;

import io.providermirror.upstream.ModuleSource;
import io.providermirror.upstream.verify.ArchiveType;
import java.util.Optional;

/**
 * What a module version's {@code download} answer needs: the type of the archive the mirror serves, the module's
 * directory inside it and what follows the archive's URL in the source the client is given ({@code sourceSuffix},
 * {@link ModuleSource#onMirrorSuffix}: made once per answer, not per request); or, for a source the mirror does not
 * fetch and is configured to pass through, the origin's source unchanged ({@code passthrough}); {@code pinned} when
 * the answer came from the version's pin (the mirror fetched it before) rather than from the origin.
 */
public record ModuleDownload(
        ArchiveType type, String subdirectory, String sourceSuffix, Optional<String> passthrough, boolean pinned) {

    /**
     * A download served from the mirror's archive; {@code pinned} when the mirror fetched it before.
     *
     * @throws IllegalArgumentException when {@code subdirectory} is not a plain relative path inside the archive
     */
    public static ModuleDownload onMirror(ArchiveType type, String subdirectory, boolean pinned) {
        return new ModuleDownload(
                type, subdirectory, ModuleSource.onMirrorSuffix(type, subdirectory), Optional.empty(), pinned);
    }

    /** A source the mirror hands to clients as its origin wrote it. */
    public static ModuleDownload passthrough(String location) {
        return new ModuleDownload(null, "", "", Optional.of(location), false);
    }
}
