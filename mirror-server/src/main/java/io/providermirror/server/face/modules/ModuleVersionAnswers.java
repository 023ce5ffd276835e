package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.ReleaseAge;
import io.providermirror.server.core.RenderedAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.upstream.ModuleRegistryClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The module registry's {@code versions} answers: a module's version list filtered by the policy and rendered once
 * per list, then served as the same bytes until the list is replaced (a refresh, or a read back from the cache),
 * as the providers' {@code index.json} is ({@link RenderedAnswers}). The policy does not change while the mirror
 * runs.
 */
final class ModuleVersionAnswers {

    private final ModulePolicy policy;
    private final ReleaseAge ages;
    private final BiFunction<ModuleAddress, ProviderVersion, Optional<Instant>> published;
    private final Clock clock;
    private final Function<ModuleAddress, CompletableFuture<ModuleVersions.Entry>> listed;
    private final Function<ModuleAddress, Optional<ModuleVersions.Entry>> inMemory;
    private final Executor executor;
    // Bounded like every cache keyed by what clients send; an answer is small (a few dozen versions).
    private final RenderedAnswers<ModuleVersions.Entry> rendered = new RenderedAnswers<>(10_000);

    /**
     * @param published when an origin said a version was published, if one did (blocking)
     * @param listed    a module's version list, with its sightings (from memory, the cache or the origin)
     * @param inMemory  a module's version list if memory holds it now (never loads)
     * @param executor  for blocking work: reading what the mirror learnt of a module
     */
    ModuleVersionAnswers(
            ModulePolicy policy,
            BiFunction<ModuleAddress, ProviderVersion, Optional<Instant>> published,
            Function<ModuleAddress, CompletableFuture<ModuleVersions.Entry>> listed,
            Function<ModuleAddress, Optional<ModuleVersions.Entry>> inMemory,
            Executor executor,
            Clock clock) {
        this.policy = policy;
        this.ages = policy.releaseAge();
        this.published = published;
        this.listed = listed;
        this.inMemory = inMemory;
        this.executor = executor;
        this.clock = clock;
    }

    /**
     * Completes when the release-age quarantine lets {@code version} of {@code address} be served now; fails with a
     * {@link PolicyDeniedException} naming the rule and the date when it holds it back. What every answer that names
     * one version (its download, its archive, its details) waits for. Judged on the module's version list and its
     * sightings; when that list cannot be had, on the origin's date alone (so a cached archive is still served while
     * the origin is down). At once, on the caller's thread, when no release age applies.
     */
    CompletableFuture<Void> cleared(ModuleAddress address, ProviderVersion version) {
        if (!ages.active()) {
            return CompletableFuture.completedFuture(null);
        }
        return listed.apply(address)
                .handle((entry, failure) ->
                        entry != null ? entry : new ModuleVersions.Entry(List.of(), Optional.empty()))
                .thenAcceptAsync(entry -> refuseHeld(address, version, entry), executor);
    }

    /**
     * Whether the quarantine lets {@code version} of {@code address} appear in a list answer of the full registry API
     * now: judged on the origin's {@code published} date in that answer and the sightings of the module's version
     * list when memory holds it. Never blocks.
     */
    boolean offered(ModuleAddress address, ProviderVersion version, Optional<Instant> published) {
        if (!ages.active()) {
            return true;
        }
        Optional<VersionSightings> sightings = inMemory.apply(address).flatMap(ModuleVersions.Entry::sightings);
        return ages.offered(
                moduleKey(address), version, VersionSightings.evidence(sightings, version, published, clock));
    }

    /**
     * {@code answer} made of a version list once {@code listed} has it: on the thread that completes it (a list in
     * memory is answered at once, on the event loop), or on {@code executor} while the release-age quarantine may
     * read what the mirror learnt of a version (blocking).
     */
    <T> CompletableFuture<T> fromList(
            CompletableFuture<ModuleVersions.Entry> listed,
            Executor executor,
            Function<ModuleVersions.Entry, T> answer) {
        return ages.active() ? listed.thenApplyAsync(answer, executor) : listed.thenApply(answer);
    }

    /** Whether the release-age quarantine may hold versions back. */
    boolean holdsBack() {
        return ages.active();
    }

    /**
     * Refuses {@code version} with a {@link PolicyDeniedException} when the release-age quarantine holds it back.
     * Blocking: may read what the mirror learnt of the module.
     */
    void refuseHeld(ModuleAddress address, ProviderVersion version, ModuleVersions.Entry entry) {
        Optional<String> held = ages.refusal(moduleKey(address), version, evidence(address, version, entry));
        if (held.isPresent()) {
            throw new PolicyDeniedException("module " + held.get());
        }
    }

    private ReleaseAge.Evidence evidence(ModuleAddress address, ProviderVersion version, ModuleVersions.Entry entry) {
        return VersionSightings.evidence(entry.sightings(), version, published.apply(address, version), clock);
    }

    private static String moduleKey(ModuleAddress address) {
        return address.hostname() + "/" + address.namespace() + "/" + address.name() + "/" + address.system();
    }

    /** The {@code versions} answer for {@code entry}, the list {@code address} has now. */
    RenderedDocument rendered(ModuleAddress address, ModuleVersions.Entry entry) {
        if (ages.active()) {
            // What the quarantine offers changes with the clock, not with the list: rendered per request.
            return render(allowed(address, entry));
        }
        return rendered.get(entry, list -> render(allowed(address, list)));
    }

    /**
     * The versions of {@code entry} the policy lets in, in the origin's order.
     *
     * @throws PolicyDeniedException when the policy refuses every one of them
     */
    List<ProviderVersion> allowed(ModuleAddress address, ModuleVersions.Entry entry) {
        List<ProviderVersion> allowed = entry.versions().stream()
                .filter(version -> policy.allows(address, version))
                .toList();
        if (ages.active() && !allowed.isEmpty()) {
            List<ProviderVersion> offered = allowed.stream()
                    .filter(version -> ages.offered(moduleKey(address), version, evidence(address, version, entry)))
                    .toList();
            if (offered.isEmpty()) {
                ProviderVersion newest =
                        allowed.stream().max(ProviderVersion::compareTo).orElseThrow();
                refuseHeld(address, newest, entry);
            }
            return offered;
        }
        if (allowed.isEmpty() && !entry.versions().isEmpty()) {
            throw new PolicyDeniedException("the policy refuses every version of module " + address
                    + " its origin lists ("
                    + policy.refusal(address, entry.versions().get(0)).orElse("")
                    + ")");
        }
        return allowed;
    }

    private static RenderedDocument render(List<ProviderVersion> versions) {
        return new RenderedDocument(ModuleRegistryClient.versionsDocument(versions));
    }
}
