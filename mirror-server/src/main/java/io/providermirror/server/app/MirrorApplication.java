package io.providermirror.server.app;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.providermirror.cache.BlobStore;
import io.providermirror.server.access.TokenHashes;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfiguredFiles;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.http.ConnectionLimits;
import io.providermirror.server.http.HttpServices;
import io.providermirror.server.http.Manual;
import io.providermirror.server.http.MirrorServer;
import io.providermirror.server.http.OperatorActions;
import io.providermirror.server.http.OperatorApi;
import io.providermirror.server.metrics.StandardBinders;
import io.providermirror.server.report.StatusReports;
import io.providermirror.server.status.Operations;
import io.providermirror.server.status.StatusPage;
import io.providermirror.server.tls.ConfiguredIdentity;
import io.providermirror.server.tls.EarlierCa;
import io.providermirror.server.tls.GeneratedCa;
import io.providermirror.server.tls.GeneratedCertificates;
import io.providermirror.server.tls.ServerIdentity;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * A running mirror: builds every part from a configuration, starts the listeners, and stops it all, at once
 * on close or gracefully on shutdown. The command line and the whole-server tests both start the mirror
 * through this class.
 */
public final class MirrorApplication implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MirrorApplication.class);

    private final MirrorServer server;
    private final MirrorWiring core;
    private final ServerIdentity identity;
    private final GeneratedCa generatedCa;
    private final Operations operations;
    private final PrometheusMeterRegistry registry;
    private final AutoCloseable binders;
    private final OriginRecheck recheck;
    private final OriginWarmUp.Progress warmUp;
    private final AtomicBoolean stopped = new AtomicBoolean();

    /** How often an unreachable origin is asked again, so that its health recovers with it. */
    static final Duration ORIGIN_RECHECK_INTERVAL = Duration.ofSeconds(30);

    private MirrorApplication(
            MirrorServer server,
            MirrorWiring core,
            ServerIdentity identity,
            GeneratedCa generatedCa,
            Operations operations,
            PrometheusMeterRegistry registry,
            AutoCloseable binders,
            OriginRecheck recheck,
            OriginWarmUp.Progress warmUp) {
        this.recheck = recheck;
        this.warmUp = warmUp;
        this.server = server;
        this.core = core;
        this.identity = identity;
        this.generatedCa = generatedCa;
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
    public static MirrorApplication start(
            MirrorConfig config, Clock clock, boolean verifyCache, UnaryOperator<BlobStore> storeView)
            throws IOException, InterruptedException {
        return start(config, clock, verifyCache, storeView, (core, maxBundleBytes) -> null);
    }

    /**
     * Makes the operator API's actions over the mirror's core. The wiring that sees the bundle importer (the command
     * line; whole-server tests) passes one; without one (null) the operator API stays off.
     */
    @FunctionalInterface
    public interface OperatorActionsFactory {
        OperatorActions over(MirrorWiring core, long maxBundleBytes) throws IOException;
    }

    /** As {@link #start(MirrorConfig, Clock, boolean, UnaryOperator)}, with the operator API's actions. */
    public static MirrorApplication start(
            MirrorConfig config,
            Clock clock,
            boolean verifyCache,
            UnaryOperator<BlobStore> storeView,
            OperatorActionsFactory operatorActions)
            throws IOException, InterruptedException {
        // Everything the configuration names is checked before anything (a directory, a CA) is created.
        try {
            ConfiguredFiles.check(config);
        } catch (ConfigException e) {
            throw new IOException(e.getMessage(), e);
        }
        // So is every address the mirror listens on: a port in use stops start-up with nothing made.
        MirrorServer.checkCanListen(new MirrorServer.Listener(
                config.server().host(), config.server().port(), null, "server"));
        if (config.management().enabled()) {
            MirrorServer.checkCanListen(new MirrorServer.Listener(
                    config.management().host(), config.management().port(), null, "management"));
        }
        ServerIdentity configuredIdentity = config.server().tls() == null
                ? null
                : ConfiguredIdentity.read(config.server().tls(), publicHostName(), clock);
        TokenHashes operatorTokens =
                TokenHashes.load(config.operator().tokens(), config.operator().tokensFile(), "operator.tokensFile");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MirrorWiring core;
        try {
            core = MirrorWiring.open(config, clock, verifyCache, storeView, registry);
        } catch (IOException | RuntimeException e) {
            registry.close();
            throw e;
        }
        try {
            ServerIdentity identity = config.server().plainHttp()
                    ? null
                    : configuredIdentity != null
                            ? configuredIdentity
                            : new GeneratedCertificates(
                                            config.server().generatedTls().directoryBeside(core.cacheDirectory()),
                                            advertisedNames(config),
                                            clock)
                                    .loadOrCreate();
            EarlierCa.removeFrom(core.cacheDirectory(), identity == null ? Optional.empty() : identity.generatedCa());
            Operations operations =
                    new Operations(registry, core.cacheDirectory().resolve("tmp"));
            core.storeProbe().ifPresent(operations::store);
            String fallbackAuthority = config.server()
                    .advertisedAuthority(
                            coveredHostName(identity) + ":" + config.server().port());
            byte[] caPem = identity == null || identity.generatedCa().isEmpty()
                    ? null
                    : java.nio.file.Files.readAllBytes(identity.generatedCa().get());
            StatusReports reports = new StatusReports(
                    core.blobs(),
                    core.metrics(),
                    core.mirror(),
                    core.modules(),
                    StartupBanner.originsReachedAt(config),
                    clock,
                    core.auth().sightings(),
                    core.inventory(),
                    () -> io.providermirror.server.report.PolicyStatus.of(
                            config.policy(), core.policyHolds().now()));
            StatusPage statusPage = new StatusPage(
                    reports,
                    StartupBanner.originsReachedAt(config).keySet(),
                    StartupBanner.parentMirrorHosts(config),
                    caPem,
                    fallbackAuthority,
                    clock,
                    core.log().verifierKey());
            HttpServices services = new HttpServices(
                    core.mirror(),
                    statusPage,
                    operations,
                    core.metrics(),
                    core.auth(),
                    Manual.packaged(),
                    core.executor(),
                    core.modules(),
                    core.networkMirror(),
                    core.registry(),
                    config.operator().enabled()
                            ? new OperatorApi(
                                    operatorTokens,
                                    operatorActions.over(
                                            core,
                                            config.operator().maxBundleSize().bytes()),
                                    reports)
                            : OperatorApi.OFF,
                    core.log(),
                    core.inventory());
            core.inventory().start(config.inventory().flushInterval());
            MirrorServer server = MirrorServer.bind(
                    new MirrorServer.Listener(
                            config.server().host(), config.server().port(), identity, "server"),
                    config.management().enabled()
                            ? new MirrorServer.Listener(
                                    config.management().host(),
                                    config.management().port(),
                                    null,
                                    "management")
                            : null,
                    services,
                    new ConnectionLimits(
                            config.server().requestReadTimeout(),
                            config.server().idleTimeout(),
                            config.server().maxConnections()),
                    registry,
                    config.server().nativeTransport());
            // The JVM's meters once the listeners answer: reading the JVM's management beans for the first time takes
            // a twentieth of a second, off the way to the first answer; a scrape in the moment between lacks them.
            AutoCloseable binders = StandardBinders.bind(registry, core.cacheDirectory());
            operations.listener(server::isListening);
            operations.fillLeases(core.fillLeases());
            OriginRecheck recheck = new OriginRecheck(
                    core.metrics().originHealth(),
                    host -> core.discovery().providersBase(host),
                    StartupBanner.parentMirrorHosts(config),
                    core.executor(),
                    core.lanes(),
                    ORIGIN_RECHECK_INTERVAL);
            if (!config.upstream().offline()) {
                recheck.start();
            }
            CacheUpkeep.start(config, core, clock);
            // The listeners answer: what the first origin request would make on its own time is made now, beside.
            OriginWarmUp.Progress warmUp = OriginWarmUp.start(config, core);
            return new MirrorApplication(
                    server,
                    core,
                    identity,
                    caPem == null ? null : GeneratedCa.of(caPem),
                    operations,
                    registry,
                    binders,
                    recheck,
                    warmUp);
        } catch (IOException | InterruptedException | RuntimeException e) {
            core.close();
            registry.close();
            throw e;
        }
    }

    /** The names the generated certificate is made for: {@code server.generatedTls.names}, then the public URLs'. */
    private static java.util.List<String> advertisedNames(MirrorConfig config) {
        java.util.LinkedHashSet<String> names =
                new java.util.LinkedHashSet<>(config.server().generatedTls().names());
        names.addAll(config.server().publicHostNames());
        return java.util.List.copyOf(names);
    }

    /**
     * The machine's host name when the listener's certificate names it (or there is no certificate: plain HTTP),
     * else {@code localhost}: the mirror never advertises a name its certificate does not cover.
     */
    static String coveredHostName(ServerIdentity identity) {
        String host = publicHostName();
        return identity == null || identity.names(host) ? host : "localhost";
    }

    /** This listener's {@link #coveredHostName(ServerIdentity)}. */
    public String coveredHostName() {
        return coveredHostName(identity);
    }

    /** The name other machines most likely reach this one by. */
    public static String publicHostName() {
        try {
            return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
        } catch (IOException e) {
            return "localhost";
        }
    }

    public int port() {
        return server.port();
    }

    /** How the listener does its I/O and TLS, e.g. {@code epoll, TLS by BoringSSL}. */
    public String transport() {
        return server.transport();
    }

    /** The plain-HTTP management listener's port, when one is configured. */
    public OptionalInt managementPort() {
        return server.managementPort();
    }

    /** The CA certificate clients must trust, when the mirror generated its own certificate. */
    public Optional<Path> generatedCaFile() {
        return identity == null ? Optional.empty() : identity.generatedCa();
    }

    /** The CA the mirror generated, with what it can sign, when it generated its own certificate. */
    public Optional<GeneratedCa> generatedCa() {
        return Optional.ofNullable(generatedCa);
    }

    /**
     * Completes once the clients towards origins and their trust, made in the background after the listeners came
     * up, are ready (at once when offline); exceptionally when they could not be made.
     */
    public CompletableFuture<Void> originsPrepared() {
        return warmUp.clientsPrepared();
    }

    /**
     * Completes once everything made in the background after the listeners came up has run (the origin clients, the
     * sample release's verification, the most requested cached releases read into memory, a discovery request to each
     * expected origin, the start-up rehearsal), whatever each gave.
     */
    public CompletableFuture<Void> warmedUp() {
        return warmUp.done();
    }

    /** What the start-up rehearsal did, once it ran; empty when none ran ({@code upstream.rehearseAtStartup}). */
    CompletableFuture<Optional<StartupRehearsal.Outcome>> rehearsed() {
        return warmUp.rehearsed();
    }

    /** The mirror behind the listeners: what the operator commands and the tests act on directly. */
    public MirrorWiring core() {
        return core;
    }

    public Path cacheDirectory() {
        return core.cacheDirectory();
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
            LOG.info(
                    finished ? "every response in progress finished" : "the grace period ended; closing what was left");
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
        recheck.close();
        warmUp.stop(Duration.ofSeconds(5));
        server.close();
        core.close();
        try {
            binders.close();
        } catch (Exception e) {
            LOG.debug("closing the JVM meters failed: {}", e.toString());
        }
        registry.close();
    }
}
