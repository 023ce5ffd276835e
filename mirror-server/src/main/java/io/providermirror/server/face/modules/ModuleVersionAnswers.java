package io.providermirror.server.face.modules;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.upstream.ModuleRegistryClient;
import java.util.List;

/**
 * The module registry's {@code versions} answers: a module's version list filtered by the policy and rendered once
 * per list, then served as the same bytes until the list is replaced (a refresh, or a read back from the cache),
 * as the providers' {@code index.json} is. The policy does not change while the mirror runs.
 */
final class ModuleVersionAnswers {

    /** A version list and the answer rendered from it: reused while the list served is that same one. */
    private record Rendered(ModuleVersions.Entry entry, RenderedDocument document) {}

    private final ModulePolicy policy;
    // Bounded like every cache keyed by what clients send; an answer is small (a few dozen versions).
    private final Cache<ModuleAddress, Rendered> rendered =
            Caffeine.newBuilder().maximumSize(10_000).build();

    ModuleVersionAnswers(ModulePolicy policy) {
        this.policy = policy;
    }

    /** The {@code versions} answer for {@code entry}, the list {@code address} has now. */
    // The same list object, not an equal one: a refresh makes a new entry, and comparing lists per request is what
    // rendering once avoids.
    @SuppressWarnings("ReferenceEquality")
    RenderedDocument rendered(ModuleAddress address, ModuleVersions.Entry entry) {
        Rendered known = rendered.getIfPresent(address);
        if (known != null && known.entry() == entry) {
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
