package io.providermirror.server.providers;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.face.mirror.NetworkMirrorFace;

/** Builds what the provider path's tests ask through: the network mirror face over a {@link ProviderMirror}. */
final class ProviderMirrors {

    private ProviderMirrors() {}

    /** {@code index.json} and {@code <version>.json} of {@code mirror}, with bare archive URLs. */
    static NetworkMirrorFace networkMirror(ProviderMirror mirror) {
        return new NetworkMirrorFace(mirror, MirrorAuth.OPEN);
    }
}
