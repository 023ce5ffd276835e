package io.providermirror.server.report;

import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageItem;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * One item of the usage inventory as the status reports it: a provider version's platform or a module version
 * ({@code platform} empty), when first and last requested, how often, and by which clients.
 *
 * @param kind {@code provider} or {@code module}
 */
public record UsageStatus(
        String kind,
        String address,
        String version,
        String platform,
        Instant firstRequested,
        Instant lastRequested,
        long requests,
        Map<String, Long> clients) {

    public UsageStatus {
        clients = java.util.Collections.unmodifiableMap(new TreeMap<>(clients));
    }

    /** {@code usage} of {@code item}. */
    static UsageStatus of(UsageItem item, Usage usage) {
        return new UsageStatus(
                item.kind().label(),
                item.address(),
                item.version().toString(),
                item.platform(),
                usage.first(),
                usage.last(),
                usage.requests(),
                usage.clients());
    }

    /** Items of {@code entries}, in their order. */
    static java.util.List<UsageStatus> of(java.util.List<Map.Entry<UsageItem, Usage>> entries) {
        return entries.stream().map(e -> of(e.getKey(), e.getValue())).toList();
    }
}
