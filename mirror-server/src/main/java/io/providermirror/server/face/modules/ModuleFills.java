package io.providermirror.server.face.modules;

import io.providermirror.cache.ArchiveFill;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.FillRegistry;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.ArchiveCommittedElsewhere;
import io.providermirror.server.core.ArchiveCopy;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.CacheLayout;
import io.providermirror.server.core.CacheWriteException;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.tlog.Decision;
import io.providermirror.server.tlog.DecisionLog;
import io.providermirror.upstream.ModuleSource;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.git.FetchedSource;
import io.providermirror.upstream.git.GitFetchException;
import io.providermirror.upstream.git.GitSource;
import io.providermirror.upstream.git.PackedTree;
import io.providermirror.upstream.git.TreeArchive;
import io.providermirror.upstream.verify.ArchiveLimits;
import io.providermirror.upstream.verify.ArchiveType;
import io.providermirror.upstream.verify.ModuleArchiveCheck;
import io.providermirror.upstream.verify.VerificationException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches a module version's content into the archive store through {@link OriginFills}, as provider archives are
 * fetched: once however many callers ask, holding one of the places of the module's host, within the archive's
 * deadline and the least transfer rate. An https archive is kept as the origin's bytes (checked for size, entries
 * and names first), a git ref as the mirror's deterministic tar.gz of its tree (the git server checked as a
 * destination of the module's origin first). The first fetch pins the content ({@link ModulePin}) before it is
 * committed; a later fetch that differs is refused and counted, and what the cache holds stays.
 */
final class ModuleFills {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleFills.class);

    /** The bounds on what module content unpacks to, and where git clones are made. */
    record Settings(ArchiveLimits unpacked, Path workDirectory) {}

    private final DecisionLog decisions;
    private final Settings settings;
    private final GitSource git;
    private final ModuleOrigins origins;
    private final OriginFills fills;
    private final CacheDocuments documents;
    private final Clock clock;
    private final MirrorMetrics metrics;

    ModuleFills(
            Settings settings,
            GitSource git,
            ModuleOrigins origins,
            OriginFills fills,
            CacheDocuments documents,
            Clock clock,
            MirrorMetrics metrics,
            DecisionLog decisions) {
        this.decisions = decisions;
        this.settings = settings;
        this.git = git;
        this.origins = origins;
        this.fills = fills;
        this.documents = documents;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** The fetch of the archive {@code key} running now, if one is: it completes once the archive is committed. */
    Optional<CompletableFuture<Void>> running(CacheKey key) {
        return fills.running(key).map(ModuleFills::committed);
    }

    /**
     * Fetches {@code source} as this version's content, or joins the fetch of it that is running; completes once
     * its archive is in the store (at once when it is already), or with why not (no place free for its host, say).
     */
    CompletableFuture<Void> fill(ModuleAddress address, ProviderVersion version, ModuleSource source) {
        String what = "module " + address + " " + version;
        if (source.kind() == ModuleSource.Kind.UNSUPPORTED) {
            return CompletableFuture.failedFuture(new OriginException(
                    OriginException.Reason.BAD_RESPONSE,
                    what + ": the mirror cannot fetch its source " + source + ": " + source.reason()));
        }
        CacheKey key =
                CacheLayout.moduleArchive(address, version, typeOf(source).extension());
        Optional<FillRegistry.Joined> joined;
        try {
            joined = fills.joinOrStart(key, address.hostname(), what, fill -> fetch(fill, address, version, source));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return joined.map(j -> committed(j.fill())).orElseGet(() -> CompletableFuture.completedFuture(null));
    }

    /** The archive type of an extension, as pins and archive names write it. */
    static ArchiveType archiveType(String extension) {
        for (ArchiveType type : ArchiveType.values()) {
            if (type.extension().equals(extension)) {
                return type;
            }
        }
        throw new IllegalArgumentException("archive extension: '" + extension + "'");
    }

    /** The archive type the mirror serves a source as: the origin's for archives, tar.gz for git trees. */
    static ArchiveType typeOf(ModuleSource source) {
        return source.kind() == ModuleSource.Kind.GIT ? ArchiveType.TAR_GZ : source.archiveType();
    }

    /** Completes when {@code fill} is committed, here or (under a fill lease) by another instance. */
    private static CompletableFuture<Void> committed(ArchiveFill fill) {
        return fill.completion().handle((blob, failure) -> {
            if (failure == null || Futures.cause(failure) instanceof ArchiveCommittedElsewhere) {
                return null;
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
    }

    /** Runs on the fill pool, holding a place: commits {@code fill} or fails it, whatever happens. */
    private void fetch(ArchiveFill fill, ModuleAddress address, ProviderVersion version, ModuleSource source) {
        String what = "module " + address + " " + version;
        try {
            Optional<ModulePin> pinned = documents.modulePin(address, version).filter(pin -> !pin.accepting());
            ModulePin pin = source.kind() == ModuleSource.Kind.GIT
                    ? fetchGit(fill, address, version, source, pinned)
                    : fetchArchive(fill, address, version, source, pinned);
            // Pinned before it is visible: whatever a reader is served, the pin holds it.
            if (pinned.isEmpty()) {
                documents.writeModulePin(address, version, pin);
                LOG.info("pinned {} at {} ({})", what, pin.identity(), pin.source());
                decisions.record(Decision.modulePinned(
                        address.toString(),
                        version.canonical(),
                        pin.kind(),
                        pin.sha256(),
                        pin.commitId(),
                        pin.source()));
            }
            try {
                fill.commit(pin.sha256());
            } catch (IOException e) {
                throw OriginFills.cacheWriteFailed(what, e);
            }
            LOG.info("cached {} from {} ({} bytes, sha256 {})", what, source, pin.size(), pin.sha256());
        } catch (OriginException | VerificationException | CacheWriteException e) {
            LOG.warn("fetching {} from {} failed: {}", what, source, e.getMessage());
            fill.fail(e);
        } catch (SocketTimeoutException e) {
            fill.fail(failed(
                    OriginException.Reason.TIMEOUT,
                    "the archive of " + what + " from " + source.url().getAuthority() + " stalled: " + e.getMessage()
                            + " (upstream.readTimeout)",
                    e));
        } catch (IOException | RuntimeException e) {
            fill.fail(failed(
                    OriginException.Reason.UNAVAILABLE,
                    "fetching " + what + " from " + source + " failed: " + e.getMessage(),
                    e));
        }
    }

    private static OriginException failed(OriginException.Reason reason, String message, Exception cause) {
        LOG.warn("{}", message);
        return new OriginException(reason, message, cause);
    }

    private ModulePin fetchArchive(
            ArchiveFill fill,
            ModuleAddress address,
            ProviderVersion version,
            ModuleSource source,
            Optional<ModulePin> pinned)
            throws IOException {
        String what = "module " + address + " " + version;
        ArchiveCopy copy = fills.copy();
        // upstream.archiveTimeout counts from here, as for a provider archive.
        long deadline = copy.deadlineFromNow();
        String origin = source.url().getAuthority();
        try (OriginHttpClient.ArchiveStream stream =
                origins.of(address.hostname()).openArchive(address, version, source)) {
            OptionalLong announced = stream.contentLength();
            copy.checkAnnounced(announced, what, origin);
            fill.begin(announced);
            String hex = copy.copy(
                    stream.chunks(), fill, announced, what, origin, source.url().getHost(), deadline);
            try (SeekableByteChannel reader = fill.openReader()) {
                Optional<String> problem =
                        ModuleArchiveCheck.problem(reader, source.archiveType(), settings.unpacked());
                if (problem.isPresent()) {
                    throw refused(
                            address,
                            VerificationException.Check.MODULE_ARCHIVE,
                            "the archive of " + what + " is refused: " + problem.get());
                }
            }
            ModulePin pin = new ModulePin(
                    "ARCHIVE",
                    hex,
                    fill.writtenBytes(),
                    "",
                    source.archiveType().extension(),
                    source.subdirectory(),
                    source.toString(),
                    clock.instant(),
                    false);
            checkPin(address, version, pinned, pin);
            return pin;
        }
    }

    private ModulePin fetchGit(
            ArchiveFill fill,
            ModuleAddress address,
            ProviderVersion version,
            ModuleSource source,
            Optional<ModulePin> pinned)
            throws IOException {
        String what = "module " + address + " " + version;
        Files.createDirectories(settings.workDirectory());
        // every connection git makes passes the destination checks of the module's origin (GitSource), which also
        // bounds the fetch by upstream.archiveTimeout
        try (FetchedSource fetched = git.fetch(
                address.hostname(), source.url(), source.gitRef(), settings.workDirectory(), settings.unpacked())) {
            if (pinned.isPresent()
                    && pinned.get().kind().equals("GIT")
                    && !pinned.get().commitId().equals(fetched.commitId())) {
                checkPin(address, version, pinned, gitPin(source, fetched.commitId(), "", 0));
            }
            fill.begin(OptionalLong.empty());
            try (OutputStream out = new BufferedOutputStream(new FillOutput(fill), 64 * 1024)) {
                PackedTree packed;
                try {
                    packed = TreeArchive.write(fetched, out, settings.unpacked());
                } catch (TreeArchive.Refused e) {
                    throw refused(
                            address,
                            VerificationException.Check.MODULE_ARCHIVE,
                            "the git tree of " + what + " is refused: " + e.getMessage());
                }
                out.flush();
                ModulePin pin = gitPin(source, fetched.commitId(), packed.sha256(), packed.archiveBytes());
                checkPin(address, version, pinned, pin);
                return pin;
            }
        } catch (GitFetchException e) {
            throw new OriginException(
                    OriginException.Reason.UNAVAILABLE,
                    what + ": cannot fetch its git source " + source + ": " + e.getMessage(),
                    e);
        }
    }

    private ModulePin gitPin(ModuleSource source, String commitId, String sha256, long size) {
        return new ModulePin(
                "GIT",
                sha256,
                size,
                commitId,
                ArchiveType.TAR_GZ.extension(),
                source.subdirectory(),
                source.toString(),
                clock.instant(),
                false);
    }

    /** Refuses {@code fetched} unless it is what {@code pinned} holds (for git, the same commit). */
    private void checkPin(
            ModuleAddress address, ProviderVersion version, Optional<ModulePin> pinned, ModulePin fetched) {
        if (pinned.isEmpty()) {
            return;
        }
        ModulePin pin = pinned.get();
        if (!pin.matches(fetched)) {
            throw refused(
                    address,
                    VerificationException.Check.MODULE_PIN,
                    "module " + address + " " + version + " changed at its source since the mirror pinned it on "
                            + pin.pinnedAt() + ": pinned " + pin.identity()
                            + (pin.subdirectory().isEmpty() ? "" : " //" + pin.subdirectory()) + ", the source ("
                            + fetched.source() + ") now has " + fetched.identity()
                            + (fetched.subdirectory().isEmpty() ? "" : " //" + fetched.subdirectory())
                            + "; refused (a moved tag is a supply-chain alarm). If the change is expected, an operator "
                            + "runs: provider-mirror modules accept " + address + " " + version);
        }
    }

    private VerificationException refused(ModuleAddress address, VerificationException.Check check, String message) {
        metrics.verificationFailure(address.hostname(), check.name(), address.toString(), message);
        LOG.warn("{}", message);
        return new VerificationException(check, message);
    }

    /** Bytes appended to a fill. */
    private static final class FillOutput extends OutputStream {
        private final ArchiveFill fill;

        FillOutput(ArchiveFill fill) {
            this.fill = fill;
        }

        @Override
        public void write(int b) throws IOException {
            fill.append(ByteBuffer.wrap(new byte[] {(byte) b}));
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            fill.append(ByteBuffer.wrap(b, off, len));
        }
    }

    /** Forgets every verification failure remembered for an archive under {@code prefix} (its first segments). */
    void forgetFailuresUnder(List<String> prefix) {
        fills.forgetFailuresUnder(prefix);
    }
}
