package io.providermirror.server.core;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.BlobWrite;
import io.providermirror.cache.CacheKey;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.ModuleArchiveCheck;
import io.providermirror.upstream.ModuleSource;
import io.providermirror.upstream.OriginCredentials;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.PackageHashes;
import io.providermirror.upstream.VerificationException;
import io.providermirror.upstream.git.ArchiveLimits;
import io.providermirror.upstream.git.FetchedSource;
import io.providermirror.upstream.git.GitFetchException;
import io.providermirror.upstream.git.GitSource;
import io.providermirror.upstream.git.PackedTree;
import io.providermirror.upstream.git.TreeArchive;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches a module version's content into the archive store, once however many callers ask: an https archive as
 * the origin's bytes (checked for size, entries and names before it is kept), a git ref as the mirror's
 * deterministic tar.gz of its tree (the git server checked as a destination of the module's origin first). The
 * first fetch pins the content ({@link ModulePin}); a later fetch that differs is refused and counted, and what
 * the cache holds stays.
 */
final class ModuleFills {

    private static final Logger LOG = LoggerFactory.getLogger(ModuleFills.class);

    /** The bounds and places of module fetches. */
    record Settings(long maxArchiveBytes, ArchiveLimits unpacked, Path workDirectory) {}

    private record Key(ModuleAddress address, ProviderVersion version) {}

    private final Settings settings;
    private final OriginHttpClient http;
    private final GitSource git;
    private final OriginCredentials credentials;
    private final ModuleOrigins origins;
    private final BlobStore blobs;
    private final CacheDocuments documents;
    private final Executor fillExecutor;
    private final Clock clock;
    private final MirrorMetrics metrics;
    private final Map<Key, CompletableFuture<ModulePin>> running = new ConcurrentHashMap<>();

    ModuleFills(
            Settings settings,
            OriginHttpClient http,
            GitSource git,
            OriginCredentials credentials,
            ModuleOrigins origins,
            BlobStore blobs,
            CacheDocuments documents,
            Executor fillExecutor,
            Clock clock,
            MirrorMetrics metrics) {
        this.settings = settings;
        this.http = http;
        this.git = git;
        this.credentials = credentials;
        this.origins = origins;
        this.blobs = blobs;
        this.documents = documents;
        this.fillExecutor = fillExecutor;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** The fetch of this version running now, if one is. */
    Optional<CompletableFuture<ModulePin>> running(ModuleAddress address, ProviderVersion version) {
        return Optional.ofNullable(running.get(new Key(address, version)));
    }

    /** Fetches {@code source} as this version's content, or joins the fetch of it that is running. */
    CompletableFuture<ModulePin> fill(ModuleAddress address, ProviderVersion version, ModuleSource source) {
        Key key = new Key(address, version);
        CompletableFuture<ModulePin> started = new CompletableFuture<>();
        CompletableFuture<ModulePin> joined = running.putIfAbsent(key, started);
        if (joined != null) {
            return joined;
        }
        CompletableFuture.runAsync(
                () -> {
                    try {
                        started.complete(fetch(address, version, source));
                    } catch (RuntimeException e) {
                        started.completeExceptionally(e);
                    } finally {
                        running.remove(key, started);
                    }
                },
                fillExecutor);
        return started;
    }

    private ModulePin fetch(ModuleAddress address, ProviderVersion version, ModuleSource source) {
        String what = "module " + address + " " + version;
        try {
            Optional<ModulePin> pinned = documents.modulePin(address, version).filter(pin -> !pin.accepting());
            ModulePin pin = switch (source.kind()) {
                case ARCHIVE -> fetchArchive(address, version, source, pinned);
                case GIT -> fetchGit(address, version, source, pinned);
                case UNSUPPORTED ->
                    throw new OriginException(
                            OriginException.Reason.BAD_RESPONSE,
                            what + ": the mirror cannot fetch its source " + source + ": " + source.reason());
            };
            if (pinned.isEmpty()) {
                documents.writeModulePin(address, version, pin);
                LOG.info("pinned {} at {} ({})", what, pin.identity(), pin.source());
            }
            return pin;
        } catch (IOException e) {
            throw new OriginException(
                    OriginException.Reason.UNAVAILABLE, what + ": the cache could not store it: " + e.getMessage(), e);
        }
    }

    private ModulePin fetchArchive(
            ModuleAddress address, ProviderVersion version, ModuleSource source, Optional<ModulePin> pinned)
            throws IOException {
        String what = "the archive of module " + address + " " + version;
        String extension = source.archiveType().extension();
        CacheKey key = CacheLayout.moduleArchive(address, version, extension);
        URI registry = origins.modulesBase(address.hostname());
        // The host's token goes only where the registry itself serves the archive, as for its API.
        String token = OriginHttpClient.sameAuthority(source.url(), registry)
                ? credentials.tokenFor(address.hostname()).orElse(null)
                : null;
        try (OriginHttpClient.ArchiveStream stream = http.openArchive(address.hostname(), source.url(), what, token);
                BlobWrite write = blobs.create(key)) {
            MessageDigest sha256 = PackageHashes.sha256();
            long size = copy(stream.body(), write, sha256, what);
            String hex = HexFormat.of().formatHex(sha256.digest());
            try (SeekableByteChannel reader = write.openReader()) {
                Optional<String> problem =
                        ModuleArchiveCheck.problem(reader, source.archiveType(), settings.unpacked());
                if (problem.isPresent()) {
                    throw refused(
                            address,
                            VerificationException.Check.MODULE_ARCHIVE,
                            what + " is refused: " + problem.get());
                }
            }
            ModulePin pin = new ModulePin(
                    "ARCHIVE",
                    hex,
                    size,
                    "",
                    extension,
                    source.subdirectory(),
                    source.toString(),
                    clock.instant(),
                    false);
            checkPin(address, version, pinned, pin);
            write.commit(hex);
            return pin;
        }
    }

    private ModulePin fetchGit(
            ModuleAddress address, ProviderVersion version, ModuleSource source, Optional<ModulePin> pinned)
            throws IOException {
        String what = "module " + address + " " + version;
        Files.createDirectories(settings.workDirectory());
        // every connection git makes passes the destination checks of the module's origin (GitSource)
        try (FetchedSource fetched = git.fetch(
                address.hostname(), source.url(), source.gitRef(), settings.workDirectory(), settings.unpacked())) {
            String extension = ModuleSource.ArchiveType.TAR_GZ.extension();
            if (pinned.isPresent()
                    && pinned.get().kind().equals("GIT")
                    && !pinned.get().commitId().equals(fetched.commitId())) {
                checkPin(address, version, pinned, gitPin(source, fetched.commitId(), "", 0));
            }
            try (BlobWrite write = blobs.create(CacheLayout.moduleArchive(address, version, extension));
                    OutputStream out = new BlobOutput(write)) {
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
                write.commit(packed.sha256());
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
                ModuleSource.ArchiveType.TAR_GZ.extension(),
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
        boolean same = pin.kind().equals(fetched.kind())
                && pin.subdirectory().equals(fetched.subdirectory())
                && (pin.kind().equals("GIT")
                        ? pin.commitId().equals(fetched.commitId())
                        : pin.sha256().equals(fetched.sha256()));
        if (!same) {
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

    private long copy(InputStream in, BlobWrite write, MessageDigest sha256, String what) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long size = 0;
        int read;
        while ((read = in.read(buffer)) != -1) {
            size += read;
            if (size > settings.maxArchiveBytes()) {
                throw new OriginException(
                        OriginException.Reason.BAD_RESPONSE,
                        what + " is larger than upstream.maxArchiveBytes (" + settings.maxArchiveBytes() + " bytes)");
            }
            sha256.update(buffer, 0, read);
            write.write(ByteBuffer.wrap(buffer, 0, read));
        }
        return size;
    }

    /** Bytes written to a {@link BlobWrite}. */
    private static final class BlobOutput extends OutputStream {
        private final BlobWrite write;

        BlobOutput(BlobWrite write) {
            this.write = write;
        }

        @Override
        public void write(int b) throws IOException {
            write.write(ByteBuffer.wrap(new byte[] {(byte) b}));
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            write.write(ByteBuffer.wrap(b, off, len));
        }
    }
}
