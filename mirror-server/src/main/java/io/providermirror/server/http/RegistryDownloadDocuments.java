package io.providermirror.server.http;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.RenderedAnswers;
import io.providermirror.server.core.RenderedDocument;
import io.providermirror.server.face.providers.PublishedPackage;

/**
 * The providers.v1 face's download documents as the mirror writes them: the origin's document with its three URLs
 * pointing at the mirror. With access control each answer carries freshly signed URLs, so it is rendered per
 * request; without, a package's answer is the same for every request, so it is rendered once and kept for as long
 * as the face keeps the package ({@link RenderedAnswers}: the face's own cache bounds the memory;
 * {@link #MAX_DOCUMENTS} bounds this one too), and a warm download answer costs what a warm version document does.
 */
final class RegistryDownloadDocuments {

    /** At most this many rendered documents are kept (each about as long as the origin's, under 2 kB). */
    static final int MAX_DOCUMENTS = 4096;

    private final MirrorAuth auth;
    // Keyed by the package's identity: one package is one route's answer, since the face loads a package per
    // address, version and platform, which is all the route's URLs are made of.
    private final RenderedAnswers<PublishedPackage> unsigned = new RenderedAnswers<>(MAX_DOCUMENTS);

    RegistryDownloadDocuments(MirrorAuth auth) {
        this.auth = auth;
    }

    /** The download document of {@code pkg} as the answer to {@code route} from the client named {@code client}. */
    RenderedDocument document(Route.RegistryDownload route, PublishedPackage pkg, String client) {
        if (auth.enabled()) {
            return render(route, pkg, auth.archiveQuery(route.address(), route.version(), route.platform(), client));
        }
        return unsigned.get(pkg, p -> render(route, p, ""));
    }

    private static RenderedDocument render(Route.RegistryDownload route, PublishedPackage pkg, String query) {
        ProviderRegistryRoutes.DownloadUrls urls = ProviderRegistryRoutes.urls(route, query);
        return new RenderedDocument(pkg.render(urls.archive(), urls.sha256Sums(), urls.signature()));
    }

    /** How many rendered documents are kept now, for tests. */
    long size() {
        return unsigned.size();
    }
}
