package io.providermirror.server;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import io.providermirror.server.config.HostConfig;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.http.ConnectionLimits;
import io.providermirror.server.http.HttpServices;
import io.providermirror.server.http.MirrorServer;
import io.providermirror.server.metrics.MirrorMetrics;
import io.providermirror.server.metrics.StandardBinders;
import io.providermirror.server.tls.GeneratedCertificates;
import io.providermirror.server.tls.PemFiles;
import io.providermirror.server.tls.ServerIdentity;
import io.providermirror.upstream.OriginHttpClient;
import io.providermirror.upstream.ParentMirrorClient;
import io.providermirror.upstream.RegistryClient;
import io.providermirror.upstream.RetryPolicy;
import io.providermirror.upstream.ServiceDiscovery;
import io.providermirror.upstream.TrustedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;

/**
 * A running mirror: builds every part from a configuration, starts the listeners, and stops it all, at once
 * on close or gracefully on shutdown. The command line and the whole-server tests both start the mirror
 * through this class.
 */
public final class MirrorApplication implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MirrorApplication.class);

    /** The version of this build, as written in the jar's manifest. */
    public static final String VERSION = Optional.ofNullable(MirrorApplication.class.getPackage().getImplementationVersion())
            .orElse("dev");

    /** The README, packaged into the jar at build time and served at {@code /docs}. */
    private static final String DOCUMENTATION = "/provider-mirror/README.md";

    private final MirrorServer server;
    private final ExecutorService executor;
    private final ServerIdentity identity;
    private final Path cacheDirectory;
    private final Operations operations;
    private final PrometheusMeterRegistry registry;
    private final AutoCloseable binders;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private MirrorApplication(MirrorServer server, ExecutorService executor, ServerIdentity identity,
                              Path cacheDirectory, Operations operations, PrometheusMeterRegistry registry,
                              AutoCloseable binders) {
        this.server = server;
        this.executor = executor;
        this.identity = identity;
        this.cacheDirectory = cacheDirectory;
        this.operations = operations;
        this.registry = registry;
        this.binders = binders;
    }

    /** Starts a mirror with {@code config}. */
    public static MirrorApplication start(MirrorConfig config, Clock clock) throws IOException, InterruptedException {
        return start(config, clock, false);
    }

    /**
     * Starts a mirror with {@code config}; with {@code verifyCache}, every cached archive is hashed in full
     * before the listener opens, and those that no longer match are removed.
     */
    public static MirrorApplication start(MirrorConfig config, Clock clock, boolean verifyCache)
            throws IOException, InterruptedException {
        return start(config, clock, verifyCache, UnaryOperator.identity());
    }

    /**
     * As {@link #start(MirrorConfig, Clock, boolean)}, with the archive store seen through {@code storeView}:
     * the seam where a test injects a failing disk (and where another store implementation will plug in).
     */
    static MirrorApplication start(MirrorConfig config, Clock clock, boolean verifyCache,
                                   UnaryOperator<BlobStore> storeView) throws IOException, InterruptedException {
        Path cacheDirectory = config.cache().directory().toAbsolutePath().normalize();
        Files.createDirectories(cacheDirectory);
        if (!Files.isWritable(cacheDirectory)) {
            throw new IOException("cache.directory " + cacheDirectory + " is not writable");
        }
        ServerIdentity identity = identity(config, cacheDirectory, clock);
        SSLContext originTrust = TrustedCertificates.sslContext(config.upstream().trustedCertificates());
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
        io.providermirror.upstream.OriginCredentials tokens = OriginTokens.load(config.upstream());
        MirrorAuth auth = MirrorAuth.load(config.auth(), cacheDirectory, clock);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AutoCloseable binders = StandardBinders.bind(registry, cacheDirectory);
        MirrorMetrics metrics = new MirrorMetrics(registry, clock);
        ExecutorService executor = Executors.newCachedThreadPool(daemonThreads("mirror-io"));
        try {
            OriginHttpClient http = new OriginHttpClient(new OriginHttpClient.Settings(
                    config.upstream().connectTimeout(), config.upstream().requestTimeout(),
                    config.upstream().readTimeout(), originTrust,
                    "provider-mirror/" + VERSION, 3, 4 * 1024 * 1024,
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
            ProviderMirror mirror = new ProviderMirror(
                    new ProviderMirror.Settings(config.cache().indexTtl(), config.upstream().maxArchiveBytes(),
                            config.upstream().offline(), config.server().metadataTimeout(),
                            config.cache().metadataMemory() == null ? Runtime.getRuntime().maxMemory() / 4
                                    : config.cache().metadataMemory().bytes()),
                    new Upstream(new ServiceDiscovery(http, discoveryOverrides, tokens),
                            new RegistryClient(http, executor, tokens), new ParentMirrorClient(http, tokens)),
                    blobs, documents, executor, clock, metrics, new ProviderPolicy(config.policy()),
                    new OriginRules(config.upstream().hosts()), auth);
            Operations operations = new Operations(registry, cacheDirectory.resolve("tmp"));
            String fallbackAuthority = publicHostName() + ":" + config.server().port();
            HttpServices services = new HttpServices(mirror, new StatusPage(blobs, metrics, fallbackAuthority, clock),
                    operations, metrics, auth, documentation(), executor);
            MirrorServer server = MirrorServer.bind(
                    new MirrorServer.Listener(config.server().host(), config.server().port(), identity),
                    config.management().enabled()
                            ? new MirrorServer.Listener(config.management().host(), config.management().port(), null)
                            : null,
                    services, new ConnectionLimits(config.server().requestReadTimeout(), config.server().idleTimeout()),
                    registry);
            operations.listener(server::isListening);
            return new MirrorApplication(server, executor, identity, cacheDirectory, operations, registry, binders);
        } catch (IOException | InterruptedException | RuntimeException e) {
            executor.shutdownNow();
            registry.close();
            throw e;
        }
    }

    private static ServerIdentity identity(MirrorConfig config, Path cacheDirectory, Clock clock) throws IOException {
        if (config.server().tls() != null) {
            return new ServerIdentity(PemFiles.readCertificates(config.server().tls().certificate()),
                    PemFiles.readPrivateKey(config.server().tls().privateKey()), Optional.empty());
        }
        return new GeneratedCertificates(cacheDirectory.resolve("tls"), clock).loadOrCreate();
    }

    private static byte[] documentation() throws IOException {
        try (InputStream in = MirrorApplication.class.getResourceAsStream(DOCUMENTATION)) {
            return in == null
                    ? "This build carries no documentation; see the README of provider-mirror.\n".getBytes(StandardCharsets.UTF_8)
                    : in.readAllBytes();
        }
    }

    /** The name other machines most likely reach this one by. */
    public static String publicHostName() {
        try {
            return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    public int port() {
        return server.port();
    }

    /** The plain-HTTP management listener's port, when one is configured. */
    public OptionalInt managementPort() {
        return server.managementPort();
    }

    /** The CA certificate clients must trust, when the mirror generated its own certificate. */
    public Optional<Path> generatedCaFile() {
        return identity.generatedCa();
    }

    public Path cacheDirectory() {
        return cacheDirectory;
    }

    /** Waits until the listener closes. */
    public void awaitClose() throws InterruptedException {
        server.awaitClose();
    }

    /**
     * Stops gracefully: reports not ready, stops accepting connections, lets responses in progress (archive
     * transfers among them) finish for at most {@code grace}, then closes everything.
     */
    public void shutdown(Duration grace) {
        if (stopped.get()) {
            return;
        }
        operations.draining();
        LOG.info("shutting down: no new connections; waiting up to {} s for responses in progress", grace.toSeconds());
        try {
            boolean finished = server.drain(grace);
            LOG.info(finished ? "every response in progress finished" : "the grace period ended; closing what was left");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
    }

    @Override
    public void close() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        server.close();
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            binders.close();
        } catch (Exception e) {
            LOG.debug("closing the JVM meters failed: {}", e.toString());
        }
        registry.close();
    }
}
