package io.providermirror.server.access;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each configured client was last seen: the time of its latest request with its token. Kept in memory, one
 * entry per configured name (a name not configured is never recorded, so nothing a request sends makes it grow);
 * the usage inventory keeps them in this instance's shard ({@link #byName}), so a restart and the other instances
 * of a fleet know them too.
 */
public final class ClientSightings {

    private final List<Client> clients;
    private final Clock clock;
    private final Map<String, Instant> lastSeen = new ConcurrentHashMap<>();

    ClientSightings(List<Client> clients, Clock clock) {
        this.clients = List.copyOf(clients);
        this.clock = clock;
        clients.forEach(client -> lastSeen.put(client.name(), Instant.EPOCH));
    }

    /** {@code client} made a request now; anonymous requests are not recorded. */
    public void seen(Client client) {
        lastSeen.computeIfPresent(client.name(), (name, before) -> clock.instant());
    }

    /** When {@code name} was last seen; empty when never since start-up, or not a configured client. */
    public Optional<Instant> lastSeen(String name) {
        Instant seen = lastSeen.get(name);
        return seen == null || seen.equals(Instant.EPOCH) ? Optional.empty() : Optional.of(seen);
    }

    /** Each configured client's name with its latest request on this instance, the epoch when none since start-up. */
    public Map<String, Instant> byName() {
        return Map.copyOf(lastSeen);
    }

    /** Every configured client with when it was last seen, in the order configured. */
    public Map<Client, Optional<Instant>> all() {
        Map<Client, Optional<Instant>> all = new LinkedHashMap<>();
        clients.forEach(client -> all.put(client, lastSeen(client.name())));
        return all;
    }
}
