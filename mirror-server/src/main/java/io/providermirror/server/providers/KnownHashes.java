package io.providermirror.server.providers;

import io.providermirror.model.Platform;
import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.core.CacheDocuments;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code h1:} hashes computed for each version's verified archives ({@code hashes.json}), with one owner:
 * archives and import record them here, and whoever shows them (the cached releases) reads them here and
 * hears of each change.
 */
public final class KnownHashes {

    private static final Logger LOG = LoggerFactory.getLogger(KnownHashes.class);

    /** Hears that the hashes of a version changed; {@code hashes} is all of them now. */
    @FunctionalInterface
    interface Listener {
        void changed(ProviderAddress address, ProviderVersion version, Map<Platform, String> hashes);
    }

    private final CacheDocuments documents;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    public KnownHashes(CacheDocuments documents) {
        this.documents = documents;
    }

    void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** The hashes known for the archives of {@code version}, by platform; unreadable ones are ignored. */
    public Map<Platform, String> read(ProviderAddress address, ProviderVersion version) {
        try {
            return documents.packageHashes(address, version);
        } catch (IOException e) {
            LOG.warn("ignoring unreadable h1 hashes of {} {}: {}", address, version, e.toString());
            return Map.of();
        }
    }

    /** Records the {@code h1:} hash of a verified archive, so version documents list it from now on. */
    public void record(ProviderAddress address, ProviderVersion version, Platform platform, String h1) {
        record(address, version, Map.of(platform, h1));
    }

    /** Records the {@code h1:} hashes of verified archives of {@code version}, beside those already known. */
    public synchronized void record(ProviderAddress address, ProviderVersion version, Map<Platform, String> added) {
        Map<Platform, String> hashes = new TreeMap<>(read(address, version));
        if (!hashes.entrySet().containsAll(added.entrySet())) {
            hashes.putAll(added);
            try {
                documents.writePackageHashes(address, version, hashes);
            } catch (IOException e) {
                LOG.warn(
                        "cannot store the h1 hash of {} {} {}: {}",
                        address,
                        version,
                        added.size() == 1 ? added.keySet().iterator().next() : added.keySet(),
                        e.toString());
            }
            Map<Platform, String> now = Map.copyOf(hashes);
            listeners.forEach(listener -> listener.changed(address, version, now));
        }
    }
}
