package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.Futures;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.upstream.OriginException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The download answers that come from pins (versions the mirror fetched before, not being accepted), held in
 * {@link PulledAnswers} so that a warm download reads no file: one pin read however many callers wait, expiring
 * (never served stale) once a version list would be stale, so a pin released by another instance is seen within
 * that; bounded at 10,000 answers. A version without a pin is not held: its next download reads the pin again.
 */
final class PinnedDownloads {

    /** A module version, as the key of what its pin answers (without build metadata, as pins are kept). */
    private record PinnedVersion(ModuleAddress address, ProviderVersion version) {
        PinnedVersion {
            version = version.withoutBuildMetadata();
        }
    }

    /** A version without a usable pin: the load fails with it, so that nothing is held. */
    private static final class NotPinned extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotPinned() {
            super(null, null, false, false);
        }
    }

    private final CacheDocuments documents;
    private final PulledAnswers<PinnedVersion, ModuleDownload> answers;

    PinnedDownloads(CacheDocuments documents, Executor executor, Clock clock, Duration ttl) {
        this.documents = documents;
        this.answers = PulledAnswers.<PinnedVersion, ModuleDownload>builder(this::fromPin, executor, clock, ttl)
                .expiring()
                .build();
    }

    /** The answer memory holds for {@code version}, if any: on the caller's thread, never reading a file. */
    Optional<ModuleDownload> inMemory(ModuleAddress address, ProviderVersion version) {
        return answers.inMemory(new PinnedVersion(address, version));
    }

    /** The answer of the pin of {@code version}, read once however many callers ask; empty without a usable pin. */
    CompletableFuture<Optional<ModuleDownload>> read(ModuleAddress address, ProviderVersion version) {
        return answers.getUncounted(new PinnedVersion(address, version)).handle((pulled, failure) -> {
            if (failure == null) {
                return Optional.of(pulled.value());
            }
            if (Futures.cause(failure) instanceof NotPinned) {
                return Optional.empty();
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
    }

    /** Forgets the answer of {@code version}: after a purge or an accept. */
    void forget(ModuleAddress address, ProviderVersion version) {
        answers.forget(new PinnedVersion(address, version));
    }

    private ModuleDownload fromPin(PinnedVersion key) {
        Optional<ModulePin> pin;
        try {
            pin = documents.modulePin(key.address(), key.version());
        } catch (IOException e) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, e.getMessage(), e);
        }
        ModulePin found = pin.filter(p -> !p.accepting()).orElseThrow(NotPinned::new);
        return ModuleDownload.onMirror(ModuleFills.archiveType(found.archiveType()), found.subdirectory(), true);
    }
}
