package io.providermirror.server.core;

import java.time.Instant;

/**
 * What the mirror first fetched for one module version, which every later fetch must match: modules are not
 * signed, so this is their integrity. A git source is pinned by its commit id, an archive by its sha256.
 *
 * @param kind         {@code ARCHIVE} or {@code GIT}
 * @param sha256       of the archive the mirror keeps (the origin's bytes, or the mirror's tar.gz of the tree)
 * @param size         of that archive in bytes
 * @param commitId     for git, the commit the ref resolved to; else empty
 * @param archiveType  the archive's extension ({@code tar.gz}, {@code zip}, ...)
 * @param subdirectory the module's directory inside the archive, or empty
 * @param source       the source as the origin named it, credentials and query values left out
 * @param pinnedAt     when it was pinned
 * @param accepting    the operator accepted new content: the next fetch replaces this pin
 */
public record ModulePin(
        String kind,
        String sha256,
        long size,
        String commitId,
        String archiveType,
        String subdirectory,
        String source,
        Instant pinnedAt,
        boolean accepting) {

    public ModulePin {
        commitId = commitId == null ? "" : commitId;
        subdirectory = subdirectory == null ? "" : subdirectory;
        source = source == null ? "" : source;
    }

    /** This pin, to be replaced by the next fetch. */
    public ModulePin accepted() {
        return new ModulePin(kind, sha256, size, commitId, archiveType, subdirectory, source, pinnedAt, true);
    }

    /** This pin as one to keep: whatever a bundle says, an imported pin is not up for replacement. */
    public ModulePin withoutAcceptance() {
        return new ModulePin(kind, sha256, size, commitId, archiveType, subdirectory, source, pinnedAt, false);
    }

    /**
     * True when {@code fetched} is the content this pin holds: the same kind and subdirectory, and the same commit
     * (git) or the same sha256 (an archive). The size, source, date and acceptance do not decide.
     */
    public boolean matches(ModulePin fetched) {
        return kind.equals(fetched.kind)
                && subdirectory.equals(fetched.subdirectory)
                && (kind.equals("GIT") ? commitId.equals(fetched.commitId) : sha256.equals(fetched.sha256));
    }

    /** What the content is pinned by, for messages: {@code commit <id>} or {@code sha256 <hex>}. */
    public String identity() {
        return commitId.isEmpty() ? "sha256 " + sha256 : "commit " + commitId;
    }
}
