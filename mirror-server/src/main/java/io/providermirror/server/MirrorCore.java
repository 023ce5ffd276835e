package io.providermirror.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheDirectoryCheck;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.server.config.HostConfig;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.upstream.OriginCredentials;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.RetryPolicy;
import io.providermirror.upstream.ServiceDiscovery;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror without its listeners, over one cache directory it holds exclusively: the stores, the clients
 * towards origins, access control and the pull-through logic. The server puts HTTP in front of it; the
 * warm, export and import commands use it directly.
 */
public final class MirrorCore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MirrorCore.class);

    private final Path cacheDirectory;
    private final CacheLock lock;
    private final ExecutorService executor;
    private final BlobStore blobs;
    private final DocumentStore documents;
    private final ProviderMirror mirror;
    private final MirrorAuth auth;
    private final MirrorMetrics metrics;
    private final OriginRules rules;

    private MirrorCore(Path cacheDirectory, CacheLock lock, ExecutorService executor, BlobStore blobs,
                       DocumentStore documents, ProviderMirror mirror, MirrorAuth auth, MirrorMetrics metrics,
                       OriginRules rules) {
        this.cacheDirectory = cacheDirectory;
        this.lock = lock;
        this.executor = executor;
        this.blobs = blobs;
        this.documents = documents;
        this.mirror = mirror;
        this.auth = auth;
        this.metrics = metrics;
        this.rules = rules;
    }

    /**
     * Opens the cache directory of {@code config} (taking its lock) and builds everything over it.
     *
     * @param verifyCache hash every cached archive first, removing those that no longer match
     * @param storeView   how the archive store is seen (a test's failing disk; the identity otherwise)
     * @param registry    where the mirror's meters go
     */
    public static MirrorCore open(MirrorConfig config, Clock clock, boolean verifyCache, UnaryOperator<BlobStore> storeView,
                                  MeterRegistry registry) throws IOException {
        Path cacheDirectory = config.cache().directory().toAbsolutePath().normalize();
        Files.createDirectories(cacheDirectory);
        if (!Files.isWritable(cacheDirectory)) {
            throw new IOException("cache.directory " + cacheDirectory + " is not writable");
        }
        CacheDirectoryCheck.refuseLinks(cacheDirectory);
        CacheLock lock = CacheLock.acquire(cacheDirectory);
        ExecutorService executor = Executors.newCachedThreadPool(daemonThreads("mirror-io"));
        try {
            Map<String, URI> discoveryOverrides = new HashMap<>();
            Set<String> internalHostsAllowed = new HashSet<>();
            for (Map.Entry<String, HostConfig> host : config.upstream().hosts().entrySet()) {
                internalHostsAllowed.add(host.getKey().split(":")[0]);
                if (host.getValue().discoveryUrl() != null) {
                    discoveryOverrides.put(host.getKey(), host.getValue().discoveryUrl());
                    internalHostsAllowed.add(host.getValue().discoveryUrl().getHost().toLowerCase(Locale.ROOT));
                }
                if (host.getValue().mirrorUrl() != null) {
                    // A parent mirror is usually inside the company, on an internal address.
                    internalHostsAllowed.add(host.getValue().mirrorUrl().getHost().toLowerCase(Locale.ROOT));
                }
            }
            OriginCredentials tokens = OriginTokens.load(config.upstream());
            MirrorAuth auth = MirrorAuth.load(config.auth(), cacheDirectory, clock);
            MirrorMetrics metrics = new MirrorMetrics(registry, clock);
            OriginHttpClient http = new OriginHttpClient(new OriginHttpClient.Settings(
                    config.upstream().connectTimeout(), config.upstream().requestTimeout(),
                    config.upstream().readTimeout(), TrustedCertificates.sslContext(config.upstream().trustedCertificates()),
                    "provider-mirror/" + MirrorApplication.VERSION, 3, 4 * 1024 * 1024,
                    new RetryPolicy(config.upstream().maxAttempts(), RetryPolicy.DEFAULT.baseDelay(),
                            RetryPolicy.DEFAULT.maxDelay()), config.upstream().offline(), internalHostsAllowed,
                    EgressProxy.from(config.upstream().proxy(), System.getenv()).orElse(null)), metrics);
            FileBlobStore files = new FileBlobStore(cacheDirectory, clock,
                    config.cache().maxSize() == null ? Long.MAX_VALUE : config.cache().maxSize().bytes());
            if (verifyCache) {
                FileBlobStore.VerificationReport report = files.verifyAll();
                LOG.info("--verify-cache: hashed {} cached archives; removed {} that no longer matched{}",
                        report.checked(), report.removed().size(), report.removed().isEmpty() ? "" : ": " + report.removed());
            }
            BlobStore blobs = storeView.apply(files);
            DocumentStore documents = new FileDocumentStore(cacheDirectory, clock);
            OriginRules rules = new OriginRules(config.upstream().hosts());
            ProviderMirror mirror = new ProviderMirror(
                    new ProviderMirror.Settings(config.cache().indexTtl(), config.upstream().maxArchiveBytes(),
                            config.upstream().offline(), config.server().metadataTimeout(),
                            config.cache().metadataMemory() == null ? Runtime.getRuntime().maxMemory() / 4
                                    : config.cache().metadataMemory().bytes()),
                    new Upstream(new ServiceDiscovery(http, discoveryOverrides, tokens),
                            new RegistryClient(http, executor, tokens), new ParentMirrorClient(http, tokens)),
                    blobs, documents, executor, clock, metrics, new ProviderPolicy(config.policy()), rules, auth);
            return new MirrorCore(cacheDirectory, lock, executor, blobs, documents, mirror, auth, metrics, rules);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            lock.close();
            throw e;
        }
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    public Path cacheDirectory() {
        return cacheDirectory;
    }

    public ProviderMirror mirror() {
        return mirror;
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

    public MirrorMetrics metrics() {
        return metrics;
    }

    public OriginRules rules() {
        return rules;
    }

    /** For blocking work: disk, rendering. */
    public ExecutorService executor() {
        return executor;
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            lock.close();
        } catch (IOException e) {
            LOG.warn("cannot release the lock of {}: {}", cacheDirectory, e.toString());
        }
    }
}
