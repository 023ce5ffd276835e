package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.ModulePin;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.upstream.OriginException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The download answers that come from pins (versions the mirror fetched before, not being accepted), held in
 * {@link PulledAnswers} so that a warm download reads no file: one pin read however many callers wait, expiring
 * (never served stale) once a version list would be stale, so a pin released by another instance is seen within
 * that; bounded at 10,000 answers. A version without a usable pin is an absent answer, never held: its next download
 * reads the pin again, so a pin written meanwhile (a fill, an accept) is found at once.
 */
final class PinnedDownloads {

    /** A module version, as the key of what its pin answers (without build metadata, as pins are kept). */
    private record PinnedVersion(ModuleAddress address, ProviderVersion version) {
        PinnedVersion {
            version = version.withoutBuildMetadata();
        }
    }

    private final CacheDocuments documents;
    private final PulledAnswers<PinnedVersion, Optional<ModuleDownload>> answers;

    PinnedDownloads(CacheDocuments documents, Executor executor, Clock clock, Duration ttl) {
        this.documents = documents;
        this.answers = PulledAnswers.<PinnedVersion, Optional<ModuleDownload>>builder(
                        this::fromPin, executor, clock, ttl)
                .expiring()
                .absentWhen(Optional::isEmpty)
                .build();
    }

    /** The answer memory holds for {@code version}, if any: on the caller's thread, never reading a file. */
    Optional<ModuleDownload> inMemory(ModuleAddress address, ProviderVersion version) {
        return answers.inMemory(new PinnedVersion(address, version)).flatMap(pinned -> pinned);
    }

    /** The answer of the pin of {@code version}, read once however many callers ask; empty without a usable pin. */
    CompletableFuture<Optional<ModuleDownload>> read(ModuleAddress address, ProviderVersion version) {
        return answers.getUncounted(new PinnedVersion(address, version)).thenApply(PulledAnswers.Pulled::value);
    }

    /** Forgets the answer of {@code version}: after a purge or an accept. */
    void forget(ModuleAddress address, ProviderVersion version) {
        answers.forget(new PinnedVersion(address, version));
    }

    private Optional<ModuleDownload> fromPin(PinnedVersion key) {
        Optional<ModulePin> pin;
        try {
            pin = documents.modulePin(key.address(), key.version());
        } catch (IOException e) {
            throw new OriginException(OriginException.Reason.UNAVAILABLE, e.getMessage(), e);
        }
        return pin.filter(p -> !p.accepting())
                .map(found -> ModuleDownload.onMirror(
                        ModuleFills.archiveType(found.archiveType()), found.subdirectory(), true));
    }
}
