package io.providermirror.server.http;

import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.face.mirror.NetworkMirrorFace;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.face.providers.ProviderRegistryFace;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.status.Operations;
import io.providermirror.server.status.StatusPage;
import io.providermirror.server.tlog.MirrorLog;
import java.util.concurrent.Executor;

/**
 * What the HTTP layer answers with: the mirror itself (providers' archives; {@code networkMirror}, {@code registry}
 * and {@code modules}, the faces), the status page, the operator endpoints, the operator API, the meters,
 * access control, the documentation, the executor for anything that must not run on an event loop (disk,
 * rendering), the transparency log ({@code log}, null for a mirror that keeps none), and the usage inventory that
 * counts archive requests.
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
        NetworkMirrorFace networkMirror,
        ProviderRegistryFace registry,

        OperatorApi operator,
        MirrorLog log,
        UsageInventory inventory) {}
