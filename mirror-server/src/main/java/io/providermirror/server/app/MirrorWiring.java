package io.providermirror.server.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheDirectoryCheck;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.server.access.MirrorAuth;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.core.CacheDocuments;
import io.providermirror.server.core.ConfiguredOrigins;
import io.providermirror.server.core.EngineServices;
import io.providermirror.server.core.OriginFills;
import io.providermirror.server.core.OriginRules;
import io.providermirror.server.core.RememberedFailures;
import io.providermirror.server.face.mirror.NetworkMirrorFace;
import io.providermirror.server.face.modules.ModuleMirror;
import io.providermirror.server.face.providers.ProviderRegistryFace;
import io.providermirror.server.inventory.UsageInventory;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.metrics.StoreMeters;
import io.providermirror.server.providers.ProviderMirror;
import io.providermirror.server.tlog.MirrorLog;
import io.providermirror.upstream.HostLanes;
import io.providermirror.upstream.ModuleRegistryClient;
import io.providermirror.upstream.OriginCredentials;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.OriginTrust;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.ServiceDiscovery;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror wired together without its listeners, over one cache directory it holds exclusively: the stores, the
 * clients towards origins, access control, the pull-through engine and the faces over it. The server puts HTTP in
 * front of it; the warm, export and import commands use it directly.
 */
public final class MirrorWiring implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorWiring.class);

    /** How long closing waits for the h1: hashes of archives just committed. */
    private static final java.time.Duration BACKGROUND_WORK_GRACE = java.time.Duration.ofSeconds(30);

    private final Clock clock;
    private final ServiceDiscovery discovery;
    private final Path cacheDirectory;
    private final CacheLock lock;
    private final MirrorPools pools;
    private final BlobStore blobs;
    private final io.providermirror.cache.FillLeases fillLeases;
    private final DocumentStore documents;
    private final ProviderWiring.Providers providers;
    private final ModuleMirror modules;
    private final MirrorAuth auth;
    private final MirrorMetrics metrics;
    private final OriginRules rules;
    /** The bucket's stores when {@code cache.s3} is set, else null. */
    private final BucketStores bucketStores;
    /** The client towards origins, whose archive client has threads of its own. */
    private final OriginHttpClient http;
    /** The transparency log of the mirror's decisions. */
    private final MirrorLog log;

    private final io.providermirror.server.purge.CachePurge purge;
    private final UsageInventory inventory;
    private final ConfiguredOrigins origins;

    /** What the wiring holds and closing it releases: the cache directory's lock, the pools, the bucket's stores. */
    private record Held(Path cacheDirectory, CacheLock lock, MirrorPools pools, BucketStores bucketStores) {}

    private MirrorWiring(
            Held held,
            CacheStores stores,
            OriginAccess origin,
            ProviderWiring.Providers providers,
            ModuleMirror modules,
            MirrorAuth auth,
            MirrorMetrics metrics,
            OriginRules rules,
            Clock clock,
            MirrorLog log,
            UsageInventory inventory,
            ConfiguredOrigins origins) {
        this.log = log;
        this.origins = origins;
        this.clock = clock;
        this.http = origin.http();
        this.discovery = origin.discovery();
        this.modules = modules;
        this.fillLeases = stores.fillLeases();
        this.bucketStores = held.bucketStores();
        this.cacheDirectory = held.cacheDirectory();
        this.lock = held.lock();
        this.pools = held.pools();
        this.inventory = inventory;
        this.blobs = stores.blobs();
        this.documents = stores.documents();
        this.providers = providers;
        this.auth = auth;
        this.metrics = metrics;
        this.rules = rules;
        this.purge = new io.providermirror.server.purge.CachePurge(
                blobs, documents, providers.mirror(), providers.registry(), modules, log.decisions(), clock);
    }

    /**
     * Opens the cache directory of {@code config} (taking its lock) and builds everything over it.
     *
     * @param verifyCache hash every cached archive first, removing those that no longer match
     * @param storeView   how the archive store is seen (a test's failing disk; the identity otherwise)
     * @param registry    where the mirror's meters go
     */
    public static MirrorWiring open(
            MirrorConfig config,
            Clock clock,
            boolean verifyCache,
            UnaryOperator<BlobStore> storeView,
            MeterRegistry registry)
            throws IOException {
        Path cacheDirectory = config.cache().directory().toAbsolutePath().normalize();
        // The bundle is read and checked now, before anything is created; the trust built from it (the JDK's
        // whole CA store) only when an origin is first reached.
        OriginTrust trust;
        try {
            trust = OriginTrust.of(config.upstream().trustedCertificates());
        } catch (IOException e) {
            throw new IOException("upstream.trustedCertificates: " + e.getMessage(), e);
        }
        try {
            io.providermirror.server.config.ConfiguredFiles.createCacheDirectory(cacheDirectory);
        } catch (io.providermirror.server.config.ConfigException e) {
            throw new IOException(e.getMessage(), e);
        }
        CacheDirectoryCheck.refuseLinks(cacheDirectory);
        OriginCredentials tokens = ConfiguredCredentials.load(config.upstream());
        CacheLock lock = CacheLock.acquire(cacheDirectory);
        // Every pool is bounded, so a flood of cold misses queues (and times out) instead of starting threads
        // without end.
        MirrorPools pools = MirrorPools.create(config.upstream(), tokens);
        BucketStores bucketStores = null;
        OriginHttpClient http = null;
        MirrorLog log = null;
        try {
            // Each origin may use exactly the authorities configured for it, whether they are internal or not.
            ConfiguredOriginAuthorities origins =
                    ConfiguredOriginAuthorities.of(config.upstream().hosts());
            MirrorAuth auth = MirrorAuth.load(config.auth(), cacheDirectory, clock);
            MirrorMetrics metrics = new MirrorMetrics(registry, clock);
            metrics.expectHosts(MirrorPools.expectedHosts(config.upstream()));
            metrics.expectClients(auth.clients().stream()
                    .map(io.providermirror.server.access.Client::name)
                    .toList());
            http = ConfiguredOriginClient.open(config, trust, origins, metrics);
            long maxBytes = CacheBounds.maxBytes(config);
            // With cache.s3 the bucket is the cache of record; the directory holds its local tier.
            bucketStores = config.cache().s3() == null
                    ? null
                    : BucketStores.open(
                            config.cache().s3(),
                            cacheDirectory,
                            maxBytes,
                            CacheBounds.minFreeBytes(config, cacheDirectory),
                            clock,
                            new StoreMeters(registry));
            FileBlobStore files = bucketStores != null
                    ? bucketStores.tier()
                    : new FileBlobStore(
                            cacheDirectory, clock, maxBytes, CacheBounds.minFreeBytes(config, cacheDirectory));
            if (verifyCache) {
                CacheBounds.verified("cached archives", files.verifyAll());
                if (bucketStores != null) {
                    CacheBounds.verified(
                            "archives in S3 bucket '" + bucketStores.bucket().name() + "'",
                            bucketStores.verifyBucket());
                }
            }
            BlobStore blobs = storeView.apply(bucketStores != null ? bucketStores.blobs() : files);
            DocumentStore documents =
                    bucketStores != null ? bucketStores.documents() : new FileDocumentStore(cacheDirectory, clock);
            String instance = bucketStores == null ? "local" : BucketStores.instanceName(); // as fill leases name it
            UsageInventory inventory = new UsageInventory(
                    documents, instance, clock, config.inventory().maxItems(), auth.sightings()::byName);
            log = MirrorLog.open(cacheDirectory, config.server().publicUrl(), documents, clock);
            OriginRules rules = new OriginRules(config.upstream().hosts());
            KeyIdPins.warn(config.upstream().hosts().keySet(), rules);
            // One origin fetch per archive across the instances sharing the bucket (README "Running several
            // instances"); on its own directory, an instance's FillRegistry is enough.
            io.providermirror.cache.FillLeases fillLeases = bucketStores == null
                    ? io.providermirror.cache.FillLeases.local()
                    : bucketStores.fillLeases(config.cache().s3().fillLeaseDuration(), clock, instance);
            ProviderMirror.Settings settings = ProviderWiring.settings(config);
            metrics.bindLanes("io", pools.ioLanes());
            metrics.bindLanes("origin", pools.originLanes());
            // One set of places, leases and bounds for everything fetched from origins: provider archives, module
            // archives and git trees, on the one fill pool (as many threads as places, so none queues).
            OriginFills originFills = new OriginFills(
                    settings.fillBounds(),
                    settings.maxArchiveBytes(),
                    blobs,
                    fillLeases,
                    pools.io(),
                    pools.fills(),
                    metrics,
                    new RememberedFailures(config.upstream().verificationFailureTtl(), clock, metrics));
            // One discovery for every service of every host: providers, modules, and the recheck of failing origins.
            ServiceDiscovery discovery = new ServiceDiscovery(http, origins.discoveryOverrides(), tokens);
            OriginAccess origin = new OriginAccess(http, discovery, tokens);
            CacheStores stores = new CacheStores(blobs, documents, fillLeases);
            ConfiguredOrigins configuredOrigins = new ConfiguredOrigins(
                    rules,
                    discovery,
                    new RegistryClient(http, pools.originLanes(), tokens),
                    new ParentMirrorClient(http, tokens),
                    new ModuleRegistryClient(http, tokens),
                    new CacheDocuments(documents),
                    config.cache().indexTtl());
            EngineServices engine = new EngineServices(
                    blobs, documents, originFills, rules, pools.io(), pools.ioLanes(), clock, metrics, log.decisions());
            ProviderWiring.Providers providers =
                    ProviderWiring.create(config, settings, configuredOrigins, engine, auth);
            ModuleMirror modules = ModuleWiring.create(
                    config, cacheDirectory, origin, trust, configuredOrigins.modules(), engine, providers.holds());
            return new MirrorWiring(
                    new Held(cacheDirectory, lock, pools, bucketStores),
                    stores,
                    origin,
                    providers,
                    modules,
                    auth,
                    metrics,
                    rules,
                    clock,
                    log,
                    inventory,
                    configuredOrigins);
        } catch (IOException | RuntimeException e) {
            if (log != null) {
                log.close();
            }
            if (bucketStores != null) {
                bucketStores.close();
            }
            if (http != null) {
                http.close();
            }
            pools.shutdownNow();
            lock.close();
            throw e;
        }
    }

    public Path cacheDirectory() {
        return cacheDirectory;
    }

    /** Removes things from the cache on purpose: {@code purge}, the operator API, retention. */
    public io.providermirror.server.purge.CachePurge purge() {
        return purge;
    }

    /** The provider path both provider faces answer from. */
    public ProviderMirror mirror() {
        return providers.mirror();
    }

    /** The network mirror face: {@code index.json} and {@code <version>.json}. */
    public NetworkMirrorFace networkMirror() {
        return providers.networkMirror();
    }

    /** The providers.v1 face: the provider registry protocol over the mirror's verified releases. */
    public ProviderRegistryFace registry() {
        return providers.registry();
    }

    /** Registry modules through the mirror. */
    public ModuleMirror modules() {
        return modules;
    }

    /** Which instance of a fleet sharing the store fetches a cold archive; always this one without a shared store. */
    public io.providermirror.cache.FillLeases fillLeases() {
        return fillLeases;
    }

    public BlobStore blobs() {
        return blobs;
    }

    public DocumentStore documents() {
        return documents;
    }

    public MirrorAuth auth() {
        return auth;
    }

    /** The clock the mirror judges time by (expiring URLs, cache freshness, signature dates). */
    public Clock clock() {
        return clock;
    }

    public MirrorMetrics metrics() {
        return metrics;
    }

    public OriginRules rules() {
        return rules;
    }

    /** What each policy rule holds back now, as far as this instance has seen (the status page's). */
    public io.providermirror.server.core.PolicyHolds policyHolds() {
        return providers.holds();
    }

    /** The transparency log: where decisions are recorded, and what {@code /log/} serves. */
    public MirrorLog log() {
        return log;
    }

    /** The one client towards origins. */
    public OriginHttpClient originClient() {
        return http;
    }

    /** Service discovery of origin hosts, as every face uses it. */
    public ServiceDiscovery discovery() {
        return discovery;
    }

    /** The origins as configured, with the discovery cache every face shares. */
    public ConfiguredOrigins origins() {
        return origins;
    }

    /** With {@code cache.s3}: whether the bucket answers now ("reachable" or why not), for readiness. */
    public java.util.Optional<java.util.function.Supplier<String>> storeProbe() {
        return bucketStores == null ? java.util.Optional.empty() : java.util.Optional.of(bucketStores::probe);
    }

    /** Which provider versions and module versions clients requested, when and how often. */
    public UsageInventory inventory() {
        return inventory;
    }

    /** For blocking work: disk, rendering. */
    public ExecutorService executor() {
        return pools.io();
    }

    /** Each origin's lane on {@link #executor()}: where requests to it run. */
    public HostLanes lanes() {
        return pools.ioLanes();
    }

    @Override
    public void close() {
        try {
            if (!providers.mirror().awaitBackgroundWork(BACKGROUND_WORK_GRACE)) {
                LOG.warn("closing while h1: hashes are still being stored; their version documents list zh: only "
                        + "for those platforms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pools.shutdownNow();
        try {
            pools.awaitTermination(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        http.close();
        inventory.close(); // its last counts, while the bucket's stores are open
        log.close(); // after the pools: work still running may record a decision
        if (bucketStores != null) {
            bucketStores.close();
        }
        try {
            lock.close();
        } catch (IOException e) {
            LOG.warn("cannot release the lock of {}: {}", cacheDirectory, e.toString());
        }
    }
}
