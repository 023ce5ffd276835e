package io.providermirror.server.app;

import io.providermirror.model.ProviderAddress;
import io.providermirror.model.ProviderVersion;
import io.providermirror.server.inventory.MostRequested;
import io.providermirror.server.inventory.Usage;
import io.providermirror.server.inventory.UsageItem;
import io.providermirror.server.providers.ProviderMirror;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
     * The provider versions of the inventory's {@code items}, by their requests (every platform's together), most
     * first ({@link MostRequested}), at most {@link #MAX_RELEASES}; an item whose address does not parse is passed
     * over.
     */
    static List<Release> mostRequested(Map<UsageItem, Usage> items) {
        return MostRequested.rank(
                items, CachedReleasesAhead::release, Comparator.comparing(Release::toString), MAX_RELEASES);
    }

    private static Optional<Release> release(UsageItem item) {
        if (item.kind() != UsageItem.Kind.PROVIDER) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Release(ProviderAddress.parse(item.address()), item.version()));
        } catch (IllegalArgumentException e) {
            LOG.debug("passing over the inventory's item {}: {}", item, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Loads the {@link #mostRequested} releases of the inventory's {@code items} that the cache holds into
     * {@code mirror}'s memory, one after the other, until done, {@code stopped} or interrupted; returns how many it
     * loaded. A release that fails is left for the request that meets it, which reports it.
     */
    static int load(ProviderMirror mirror, Map<UsageItem, Usage> items, BooleanSupplier stopped) {
        List<Release> releases = mostRequested(items);
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
