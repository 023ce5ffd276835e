package io.providermirror.server.face.modules;

import io.providermirror.upstream.verify.ArchiveType;
import java.util.Optional;

/**
 * What a module version's {@code download} answer needs: the type of the archive the mirror serves and the
 * module's directory inside it; or, for a source the mirror does not fetch and is configured to pass through,
 * the origin's source unchanged ({@code passthrough}); {@code pinned} when the answer came from the version's pin
 * (the mirror fetched it before) rather than from the origin.
 */
public record ModuleDownload(ArchiveType type, String subdirectory, Optional<String> passthrough, boolean pinned) {

    /** A download served from the mirror's archive; {@code pinned} when the mirror fetched it before. */
    public static ModuleDownload onMirror(ArchiveType type, String subdirectory, boolean pinned) {
        return new ModuleDownload(type, subdirectory, Optional.empty(), pinned);
    }
}
