package io.providermirror.server.face.modules;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.ReleaseAge;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.core.VersionSightings;
import io.providermirror.upstream.ModuleRegistryClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The module registry's {@code versions} answers: a module's version list filtered by the policy and rendered once
 * per list, then served as the same bytes until the list is replaced (a refresh, or a read back from the cache),
 * as the providers' {@code index.json} is. The policy does not change while the mirror runs.
 */
final class ModuleVersionAnswers {

    /** A version list and the answer rendered from it: reused while the list served is that same one. */
    private record Rendered(ModuleVersions.Entry entry, RenderedDocument document) {}

    private final ModulePolicy policy;
    private final ReleaseAge ages;
    private final BiFunction<ModuleAddress, ProviderVersion, Optional<Instant>> published;
    private final Clock clock;
    // Bounded like every cache keyed by what clients send; an answer is small (a few dozen versions).
    private final Cache<ModuleAddress, Rendered> rendered =
            Caffeine.newBuilder().maximumSize(10_000).build();

    /** @param published when an origin said a version was published, if one did (blocking) */
    ModuleVersionAnswers(
            ModulePolicy policy, BiFunction<ModuleAddress, ProviderVersion, Optional<Instant>> published, Clock clock) {
        this.policy = policy;
        this.ages = policy.releaseAge();
        this.published = published;
        this.clock = clock;
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
    // The same list object, not an equal one: a refresh makes a new entry, and comparing lists per request is what
    // rendering once avoids.
    @SuppressWarnings("ReferenceEquality")
    RenderedDocument rendered(ModuleAddress address, ModuleVersions.Entry entry) {
        Rendered known = rendered.getIfPresent(address);
        if (known != null && known.entry() == entry && !ages.active()) {
            return known.document();
        }
        RenderedDocument document = render(allowed(address, entry));
        rendered.put(address, new Rendered(entry, document));
        return document;
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
