package io.providermirror.server.app;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.server.providers.ProviderMirror;
import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verified releases a restarted mirror is asked for first, loaded from its cache into memory by the warm-up
 * after start-up: the provider versions the usage inventory counted most requests for across the fleet
 * ({@link #MAX_RELEASES} at most, most first), each read from the cache directory and verified again exactly as a
 * request's first read after a restart would (the signature over SHA256SUMS and the checks of its key, which for a
 * 4096-bit RSA key begin with a check of its modulus: tens of milliseconds the first time the process uses the key).
 * No origin is asked: a version the cache does not hold, or whose evidence no longer verifies, is left to the request
 * that asks for it; and nothing is served by being in memory (every request is refused or held back as ever). So the
 * first {@code init} after a restart or a deploy finds the releases it needs verified in memory.
 */
final class CachedReleasesAhead {

    /** At most this many releases are loaded after start-up. */
    static final int MAX_RELEASES = 16;

    /** How long the warm-up spends on them at most (reading a cache that hangs, say) before it goes on. */
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(CachedReleasesAhead.class);

    /** A provider version. */
    record Release(ProviderAddress address, ProviderVersion version) {}

    private CachedReleasesAhead() {}

    /**
     * The provider versions of {@code inventory}, by their requests across the fleet (every platform's), most first,
     * at most {@link #MAX_RELEASES}; an item whose address does not parse is passed over.
     */
    static List<Release> mostRequested(UsageInventory inventory) throws IOException {
        Map<Release, Long> requests = new HashMap<>();
        for (Map.Entry<UsageItem, Usage> item : inventory.fleet().entrySet()) {
            if (item.getKey().kind() != UsageItem.Kind.PROVIDER) {
                continue;
            }
            try {
                requests.merge(
                        new Release(
                                ProviderAddress.parse(item.getKey().address()),
                                item.getKey().version()),
                        item.getValue().requests(),
                        Long::sum);
            } catch (IllegalArgumentException e) {
                LOG.debug("passing over the inventory's item {}: {}", item.getKey(), e.getMessage());
            }
        }
        return requests.entrySet().stream()
                .sorted(Map.Entry.<Release, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(entry -> entry.getKey().toString()))
                .limit(MAX_RELEASES)
                .map(Map.Entry::getKey)
                .toList();
    }

    /**
     * Loads the {@link #mostRequested} releases of {@code inventory} that the cache holds into {@code mirror}'s
     * memory, one after the other, until done, {@code stopped} or interrupted; returns how many it loaded. A release
     * that fails is left for the request that meets it, which reports it.
     */
    static int load(ProviderMirror mirror, UsageInventory inventory, BooleanSupplier stopped) {
        List<Release> releases;
        try {
            releases = mostRequested(inventory);
        } catch (IOException | RuntimeException e) {
            LOG.debug(
                    "the usage inventory could not be read for the warm-up; loading no cached release: {}",
                    e.toString());
            return 0;
        }
        int loaded = 0;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        for (Release release : releases) {
            long left = deadline - System.nanoTime();
            if (stopped.getAsBoolean() || left <= 0) {
                break;
            }
            try {
                if (mirror.loadCachedRelease(release.address(), release.version())
                        .get(left, TimeUnit.NANOSECONDS)) {
                    loaded++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                LOG.debug(
                        "loading the cached release {} {} after start-up failed: {}",
                        release.address(),
                        release.version(),
                        e.toString());
            }
        }
        LOG.debug("loaded {} of the {} most requested cached releases into memory", loaded, releases.size());
        return loaded;
    }
}
