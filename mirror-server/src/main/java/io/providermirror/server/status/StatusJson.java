package io.providermirror.server.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.BuildInfo;
import io.providermirror.server.face.modules.StoredModule;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.metrics.OriginHealth;
import io.providermirror.upstream.Urls;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The status page's data as JSON, for scripts ({@code /status.json}, behind the same access control as the page):
 * the same numbers and lists the page shows, with times in ISO-8601 and nothing the page leaves out of text (URLs
 * without their query strings).
 */
final class StatusJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusJson() {}

    static byte[] render(
            Instant started,
            boolean offline,
            Map<String, StatusPage.Provider> providers,
            Collection<StoredModule> modules,
            long cacheBytes,
            MirrorMetrics metrics,
            Map<String, String> configuredOrigins) {
        ObjectNode root = JSON.createObjectNode()
                .put("version", BuildInfo.VERSION)
                .put("startedAt", started.toString())
                .put("offline", offline);
        ObjectNode cache = root.putObject("cache")
                .put("providers", providers.size())
                .put(
                        "providerArchives",
                        providers.values().stream()
                                .mapToLong(StatusPage.Provider::archives)
                                .sum())
                .put("moduleVersions", modules.size())
                .put("bytes", cacheBytes);
        double answered =
                metrics.lookups(MirrorMetrics.LookupResult.HIT) + metrics.lookups(MirrorMetrics.LookupResult.STALE);
        double requests = answered + metrics.lookups(MirrorMetrics.LookupResult.MISS);
        cache.putObject("lookups").put("fromCache", (long) answered).put("total", (long) requests);
        origins(root.putArray("origins"), metrics.originHealth(), configuredOrigins);
        problems(root.putArray("problems"), metrics.originHealth().recentProblems());
        providers(root.putArray("providers"), providers);
        modules(root.putArray("modules"), modules);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write the status as JSON", e);
        }
    }

    private static void origins(ArrayNode out, OriginHealth health, Map<String, String> configured) {
        Map<String, OriginHealth.Snapshot> seen = new java.util.TreeMap<>();
        health.snapshot().forEach(origin -> seen.put(origin.origin(), origin));
        java.util.TreeSet<String> names = new java.util.TreeSet<>(seen.keySet());
        names.addAll(configured.keySet());
        for (String name : names) {
            ObjectNode origin = out.addObject().put("origin", name);
            if (configured.containsKey(name)) {
                origin.put("reachedAt", Urls.redactedIn(configured.get(name)));
            }
            OriginHealth.Snapshot snapshot = seen.get(name);
            if (snapshot == null) {
                origin.put("health", "not used yet");
                continue;
            }
            origin.put("health", snapshot.healthy() ? "healthy" : "failing")
                    .put("requestsOk", snapshot.succeeded())
                    .put("requestsFailed", snapshot.failed())
                    .put("refusedByVerification", snapshot.refused());
            time(origin, "lastSuccess", snapshot.lastSuccess());
            time(origin, "lastFailure", snapshot.lastFailure());
            if (snapshot.lastFailureMessage() != null) {
                origin.put("lastFailureMessage", snapshot.lastFailureMessage());
            }
            snapshot.contacted().forEach(origin.putArray("contacted")::add);
        }
    }

    private static void problems(ArrayNode out, List<OriginHealth.Problem> problems) {
        for (OriginHealth.Problem problem : problems) {
            ObjectNode node =
                    out.addObject().put("lastSeen", problem.time().toString()).put("origin", problem.origin());
            if (problem.subject() != null) {
                node.put("subject", problem.subject());
            }
            node.put("what", problem.what()).put("count", problem.count());
        }
    }

    private static void providers(ArrayNode out, Map<String, StatusPage.Provider> providers) {
        providers.forEach((address, provider) -> {
            ObjectNode node = out.addObject().put("address", address);
            ObjectNode versions = node.putObject("versions");
            provider.versions.forEach(
                    (version, platforms) -> platforms.forEach(versions.putArray(version.canonical())::add));
            node.put("bytes", provider.bytes).put("lastFetched", provider.lastFetched.toString());
        });
    }

    private static void modules(ArrayNode out, Collection<StoredModule> modules) {
        modules.stream()
                .sorted(Comparator.comparing((StoredModule m) -> m.address().toString())
                        .thenComparing(StoredModule::version))
                .forEach(module -> out.addObject()
                        .put("address", module.address().toString())
                        .put("version", module.version().toString())
                        .put("sourceKind", module.pin().kind().equals("GIT") ? "git" : "archive")
                        .put("source", module.pin().source())
                        .put("pinnedBy", module.pin().identity())
                        .put("bytes", module.archiveBytes())
                        .put("pinnedAt", module.pin().pinnedAt().toString()));
    }

    private static void time(ObjectNode node, String field, Instant instant) {
        if (instant != null) {
            node.put(field, instant.toString());
        }
    }
}
