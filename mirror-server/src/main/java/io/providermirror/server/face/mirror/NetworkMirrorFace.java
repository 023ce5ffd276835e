package io.providermirror.server.face.mirror;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.PolicyDeniedException;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.providers.VersionLists;
import java.util.concurrent.CompletableFuture;

/**
 * The mirror's network mirror face: the two documents of the provider network mirror protocol, from the verified
 * version lists and releases of {@link ProviderMirror} (the archives they name are the mirror's, served for both
 * provider faces).
 */
public final class NetworkMirrorFace {

    private final ProviderMirror providers;
    private final MirrorAuth auth;

    /** @param auth signs the archive URLs of each version document when clients need a token */
    public NetworkMirrorFace(ProviderMirror providers, MirrorAuth auth) {
        this.providers = providers;
        this.auth = auth;
    }

    /**
     * {@code index.json}: every semver version the origin lists that the policy lets in. A provider the policy
     * refuses, or of which it refuses every version, fails with a {@link PolicyDeniedException}.
     */
    public CompletableFuture<RenderedDocument> versionIndex(ProviderAddress address) {
        return providers.allowedList(address).thenApply(VersionLists.Entry::index);
    }

    /**
     * {@code <version>.json}: every platform of a verified version that the policy lets in, with {@code zh:}
     * and known {@code h1:}; with access control, its archive URLs are signed for the client named {@code client}.
     */
    public CompletableFuture<RenderedDocument> versionDocument(
            ProviderAddress address, ProviderVersion version, String client) {
        return providers
                .allowedRelease(address, version)
                .thenApply(entry -> auth.enabled()
                        // Signed archive URLs expire, so each response gets its own.
                        ? providers.render(entry, platform -> auth.archiveQuery(address, version, platform, client))
                        : entry.document());
    }
}
