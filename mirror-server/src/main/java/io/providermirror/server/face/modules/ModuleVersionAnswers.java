package io.providermirror.server.face.modules;

import io.providermirror.model.ModuleAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.RenderedAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.upstream.ModuleRegistryClient;
import java.util.List;

/**
 * The module registry's {@code versions} answers: a module's version list filtered by the policy and rendered once
 * per list, then served as the same bytes until the list is replaced (a refresh, or a read back from the cache),
 * as the providers' {@code index.json} is ({@link RenderedAnswers}). The policy does not change while the mirror
 * runs.
 */
final class ModuleVersionAnswers {

    private final ModulePolicy policy;
    // Bounded like every cache keyed by what clients send; an answer is small (a few dozen versions).
    private final RenderedAnswers<ModuleVersions.Entry> rendered = new RenderedAnswers<>(10_000);

    ModuleVersionAnswers(ModulePolicy policy) {
        this.policy = policy;
    }

    /** The {@code versions} answer for {@code entry}, the list {@code address} has now. */
    RenderedDocument rendered(ModuleAddress address, ModuleVersions.Entry entry) {
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
