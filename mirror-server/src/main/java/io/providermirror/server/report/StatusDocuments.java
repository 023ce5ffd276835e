package io.providermirror.server.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;

/**
 * The status values as JSON, written in one place for {@code /status.json} and the operator API alike: times in
 * ISO-8601, fields that are not known (a time that never happened, a subject not known) left out.
 */
public final class StatusDocuments {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusDocuments() {}

    /** {@code status} as the JSON document {@code GET /api/v1/status} and {@code /status.json} answer. */
    public static byte[] json(MirrorStatus status) {
        ObjectNode root = JSON.createObjectNode()
                .put("version", status.version())
                .put("startedAt", status.startedAt().toString())
                .put("offline", status.offline())
                .put("accessControlled", status.accessControlled());
        MirrorStatus.Cache cache = status.cache();
        root.putObject("cache")
                .put("providers", cache.providers())
                .put("providerArchives", cache.providerArchives())
                .put("moduleVersions", cache.moduleVersions())
                .put("bytes", cache.bytes())
                .putObject("lookups")
                .put("fromCache", cache.lookupsFromCache())
                .put("total", cache.lookupsTotal());
        var origins = root.putArray("origins");
        for (MirrorStatus.Origin origin : status.origins()) {
            ObjectNode node = origins.addObject().put("origin", origin.origin());
            if (origin.reachedAt() != null) {
                node.put("reachedAt", origin.reachedAt());
            }
            node.put("health", origin.health());
            if (!origin.used()) {
                continue;
            }
            node.put("requestsOk", origin.requestsOk())
                    .put("requestsFailed", origin.requestsFailed())
                    .put("refusedByVerification", origin.refusedByVerification());
            time(node, "lastSuccess", origin.lastSuccess());
            time(node, "lastFailure", origin.lastFailure());
            if (origin.lastFailureMessage() != null) {
                node.put("lastFailureMessage", origin.lastFailureMessage());
            }
            origin.contacted().forEach(node.putArray("contacted")::add);
        }
        var problems = root.putArray("problems");
        for (MirrorStatus.Problem problem : status.problems()) {
            ObjectNode node = problems.addObject()
                    .put("lastSeen", problem.lastSeen().toString())
                    .put("origin", problem.origin());
            if (problem.subject() != null) {
                node.put("subject", problem.subject());
            }
            node.put("what", problem.what()).put("count", problem.count());
        }
        var minutes = root.putArray("lastHour");
        for (MirrorStatus.Minute minute : status.lastHour()) {
            minutes.addObject()
                    .put("start", minute.start().toString())
                    .put("requests", minute.requests())
                    .put("hits", minute.hits())
                    .put("bytes", minute.bytes());
        }
        var providers = root.putArray("providers");
        for (MirrorStatus.Provider provider : status.providers()) {
            ObjectNode node = providers.addObject().put("address", provider.address());
            ObjectNode versions = node.putObject("versions");
            provider.versions()
                    .forEach(version -> version.platforms().forEach(versions.putArray(version.version())::add));
            node.put("bytes", provider.bytes())
                    .put("lastFetched", provider.lastFetched().toString());
        }
        var modules = root.putArray("modules");
        for (MirrorStatus.Module module : status.modules()) {
            modules.addObject()
                    .put("address", module.address())
                    .put("version", module.version())
                    .put("sourceKind", module.sourceKind())
                    .put("source", module.source())
                    .put("pinnedBy", module.pinnedBy())
                    .put("bytes", module.bytes())
                    .put("pinnedAt", module.pinnedAt().toString());
        }
        clients(root.putArray("clients"), status.clients());
        policy(root.putObject("policy"), status.policy());
        var items = root.putArray("mostRequested");
        for (UsageStatus usage : status.mostRequested()) {
            ObjectNode node = items.addObject()
                    .put("kind", usage.kind())
                    .put("address", usage.address())
                    .put("version", usage.version());
            if (!usage.platform().isEmpty()) {
                node.put("platform", usage.platform());
            }
            node.put("firstRequested", usage.firstRequested().toString())
                    .put("lastRequested", usage.lastRequested().toString())
                    .put("requests", usage.requests());
            ObjectNode byClient = node.putObject("clients");
            usage.clients().forEach(byClient::put);
        }
        return write(root);
    }

    /** The configured clients as the JSON document {@code GET /api/v1/clients} answers. */
    public static byte[] json(List<ClientStatus> clients) {
        ObjectNode root = JSON.createObjectNode();
        clients(root.putArray("clients"), clients);
        return write(root);
    }

    /** Each client: its name, scope and when last seen ({@code null} when never, as far as known). */
    private static void clients(ArrayNode into, List<ClientStatus> clients) {
        for (ClientStatus client : clients) {
            ObjectNode node = into.addObject().put("name", client.name());
            ObjectNode scope = node.putObject("scope");
            client.hosts().forEach(scope.putArray("hosts")::add);
            client.namespaces().forEach(scope.putArray("namespaces")::add);
            node.put(
                    "lastSeen",
                    client.lastSeen() == null ? null : client.lastSeen().toString());
        }
    }

    private static void policy(ObjectNode into, PolicyStatus policy) {
        into.put("dryRun", policy.dryRun());
        var rules = into.putArray("rules");
        for (PolicyStatus.Rule rule : policy.rules()) {
            ObjectNode held = rules.addObject()
                    .put("id", rule.id())
                    .put("kind", rule.kind())
                    .put("what", rule.what())
                    .put("detail", rule.detail())
                    .putObject("held")
                    .put("count", rule.held().count());
            var versions = held.putArray("versions");
            for (PolicyStatus.HeldVersion version : rule.held().versions()) {
                ObjectNode node = versions.addObject().put("subject", version.subject());
                version.until().ifPresent(until -> node.put("until", until.toString()));
            }
        }
    }

    /** One provider's view as the JSON document {@code GET /api/v1/status/providers/...} answers. */
    public static byte[] json(ProviderStatus provider) {
        ObjectNode root = JSON.createObjectNode().put("address", provider.address());
        var versions = root.putArray("versions");
        for (ProviderStatus.Version version : provider.versions()) {
            ObjectNode node =
                    versions.addObject().put("version", version.version()).put("verified", version.verified());
            time(node, "verifiedAt", version.verifiedAt());
            version.signingKeys().forEach(node.putArray("signingKeys")::add);
            var platforms = node.putArray("platforms");
            for (ProviderStatus.Platform platform : version.platforms()) {
                ObjectNode p = platforms
                        .addObject()
                        .put("platform", platform.platform())
                        .put("cached", platform.cached());
                if (platform.cached()) {
                    p.put("bytes", platform.bytes());
                    time(p, "cachedAt", platform.cachedAt());
                }
                platform.hashes().forEach(p.putArray("hashes")::add);
            }
        }
        return write(root);
    }

    private static void time(ObjectNode node, String field, Instant instant) {
        if (instant != null) {
            node.put(field, instant.toString());
        }
    }

    private static byte[] write(ObjectNode root) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the status as JSON", e);
        }
    }
}
