package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.ModuleOrigins;
import io.providermirror.server.core.PulledAnswers;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.OriginException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Where a module version's content comes from, as its origin's {@code download} answer says: one request for every
 * caller that asks while it is in flight (downloads and archive requests of a version nobody fetched yet arrive
 * together when a fleet of CI runners starts), on the lane of the module's host, and never held once answered (the
 * next caller asks again: what a version's source is matters only until its fetch has pinned it). Held by
 * {@link PulledAnswers}, as every answer from an origin is. Offline, nothing is asked.
 */
final class ResolvedSources {

    /** A version of a module, as a key of what its origin is asked. */
    private record Asked(ModuleAddress address, ProviderVersion version) {
        @Override
        public String toString() {
            return "the source of module " + address + " " + version;
        }
    }

    private final ModuleOrigins origins;
    private final boolean offline;
    private final PulledAnswers<Asked, ModuleRegistryClient.ResolvedSource> answers;

    ResolvedSources(ModuleOrigins origins, boolean offline, Executor executor, HostLanes lanes, Clock clock) {
        this.origins = origins;
        this.offline = offline;
        // Every answer is absent: handed to the callers that waited for its request, never held, never refreshed.
        this.answers = PulledAnswers.<Asked, ModuleRegistryClient.ResolvedSource>builder(
                        this::resolve, executor, clock, Duration.ZERO)
                .expiring()
                .absentWhen(answer -> true)
                .pulledPerHost(lanes, asked -> asked.address().hostname())
                .build();
    }

    /** The source of {@code version} of {@code address}, from its origin; one request for every caller waiting. */
    CompletableFuture<ModuleRegistryClient.ResolvedSource> of(ModuleAddress address, ProviderVersion version) {
        return answers.getUncounted(new Asked(address, version)).thenApply(PulledAnswers.Pulled::value);
    }

    private ModuleRegistryClient.ResolvedSource resolve(Asked asked) {
        if (offline) {
            throw new OriginException(
                    OriginException.Reason.NOT_FOUND,
                    "module " + asked.address() + " " + asked.version()
                            + " was never fetched and the mirror is offline (upstream.offline)");
        }
        return origins.of(asked.address().hostname()).source(asked.address(), asked.version());
    }
}
