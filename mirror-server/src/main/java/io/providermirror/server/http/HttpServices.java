package io.providermirror.server.http;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.core.ModuleMirror;
import io.providermirror.server.core.ProviderMirror;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.status.Operations;
import io.providermirror.server.status.StatusPage;
import io.providermirror.server.tlog.MirrorLog;
import java.util.concurrent.Executor;

/**
 * What the HTTP layer answers with: the mirror itself (providers; {@code modules} for registry modules), the status page, the operator endpoints, the meters,
 * access control, the documentation, the executor for anything that must not run on an event loop (disk,
 * rendering), and the transparency log ({@code log}, null for a mirror that keeps none).
 */
public record HttpServices(
        ProviderMirror mirror,
        StatusPage statusPage,
        Operations operations,
        MirrorMetrics metrics,
        MirrorAuth auth,
        Manual manual,
        Executor executor,
        ModuleMirror modules,
        MirrorLog log) {

    /** Services without a transparency log. */
    public HttpServices(
            ProviderMirror mirror,
            StatusPage statusPage,
            Operations operations,
            MirrorMetrics metrics,
            MirrorAuth auth,
            Manual manual,
            Executor executor,
            ModuleMirror modules) {
        this(mirror, statusPage, operations, metrics, auth, manual, executor, modules, null);
    }
}
