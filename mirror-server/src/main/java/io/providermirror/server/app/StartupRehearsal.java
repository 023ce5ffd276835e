package io.providermirror.server.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.providermirror.server.access.TokenHashes;
import io.providermirror.server.config.ConfigException;
import io.providermirror.server.config.ConfigLoader;
import io.providermirror.server.config.MirrorConfig;
import io.providermirror.server.logging.QuietThreads;
import io.providermirror.server.tls.GeneratedCertificates;
import io.providermirror.server.tls.ServerIdentity;
import io.providermirror.upstream.TrustedCertificates;
import io.providermirror.upstream.git.FetchedSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one cold provider through a mirror of its own, once, in the background after start-up, so that the first
 * client's cold provider finds its code loaded, run and partly compiled instead of running it all for the first time
 * while the client waits (about half of that request's time on 2 cores): a {@link SampleOrigin} on 127.0.0.1
 * publishes the {@link SampleRelease}, a second {@link MirrorApplication} over a temporary directory (its own cache,
 * transparency log and certificate; access control on, with a token only the rehearsal knows and for that origin's
 * host only) is asked for the release's archive over HTTPS, as a client asks, and then for its {@code index.json} and
 * version document: discovery, the version list, the download document, SHA256SUMS and its signature checked, the
 * fill, the archive's answer, the commit and its {@code h1:}. Then it is closed and the directory deleted.
 *
 * <p>Nothing of it reaches the mirror that serves clients: not its cache, its transparency log, its meters, its
 * origin health or its usage inventory, and not its log (its threads are kept quiet, {@link QuietThreads}). Its
 * origin is the one host its mirror may reach and serves only the sample; the sample's key signs nothing else.
 */
final class StartupRehearsal {

    /** The host the rehearsal's mirror knows the sample origin by, as the sample release's address names it. */
    static final String HOST = SampleRelease.ADDRESS.hostname();

    /** The longest the rehearsal's client waits for one answer (a loaded machine, a slow disk). */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);

    /** The longest the rehearsal's mirror waits for one answer of the sample origin. */
    private static final Duration ORIGIN_TIMEOUT = Duration.ofSeconds(10);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How the rehearsal's temporary directories are named. */
    static final String PREFIX = "provider-mirror-rehearsal-";

    /** A rehearsal's directory older than this was left by a process that ended before the rehearsal did. */
    static final Duration ABANDONED_AFTER = Duration.ofHours(1);

    private StartupRehearsal() {}

    /**
     * What a rehearsal did.
     *
     * @param served    whether the rehearsal's mirror answered the sample's archive, byte for byte, and its documents
     * @param took      from its start until everything it made was closed and deleted
     * @param directory the temporary directory it worked in (deleted by now, unless {@code failure} says otherwise);
     *                  null when none was made
     * @param failure   what went wrong, when something did
     */
    record Outcome(boolean served, Duration took, Path directory, Optional<String> failure) {}

    /**
     * Runs the rehearsal on a thread of a group of its own (whose log is kept quiet) and waits for it. Interrupted,
     * it interrupts the rehearsal and waits up to {@code patience} more for it to close what it made.
     */
    static Outcome run(Clock clock, Duration patience) throws InterruptedException {
        ThreadGroup group = new ThreadGroup("provider-mirror-rehearsal");
        AtomicReference<Outcome> outcome = new AtomicReference<>();
        // The rehearsal's thread keeps its group quiet until it has closed everything, however long that takes.
        QuietThreads quiet = QuietThreads.of(group);
        Thread rehearsal = new Thread(
                group,
                () -> {
                    try {
                        outcome.set(rehearse(clock, group));
                    } finally {
                        quiet.close();
                    }
                },
                "start-up-rehearsal");
        rehearsal.setDaemon(true);
        try {
            rehearsal.start();
        } catch (RuntimeException | Error e) {
            quiet.close();
            throw e;
        }
        try {
            rehearsal.join();
        } catch (InterruptedException e) {
            rehearsal.interrupt();
            rehearsal.join(patience.toMillis());
            throw e;
        }
        Outcome ended = outcome.get();
        // Only an Error (a class that cannot load, memory) ends the rehearsal's thread without an outcome.
        return ended != null
                ? ended
                : new Outcome(false, Duration.ZERO, null, Optional.of("the rehearsal's thread ended by an error"));
    }

    private static Outcome rehearse(Clock clock, ThreadGroup group) {
        long start = System.nanoTime();
        Path directory = null;
        String failure = null;
        boolean served = false;
        try {
            removeAbandoned(clock);
            directory = Files.createTempDirectory(PREFIX);
            failure = rehearseIn(directory, clock, group).orElse(null);
            served = failure == null;
        } catch (IOException | ConfigException | RuntimeException e) {
            failure = e.toString();
        } catch (InterruptedException e) {
            failure = "interrupted";
        } finally {
            if (directory != null) {
                try {
                    FetchedSource.deleteTree(directory);
                } catch (UncheckedIOException e) {
                    failure = failure == null ? e.getMessage() : failure + "; " + e.getMessage();
                }
            }
        }
        return new Outcome(
                served, Duration.ofNanos(System.nanoTime() - start), directory, Optional.ofNullable(failure));
    }

    /**
     * Starts the sample origin and the rehearsal's mirror in {@code directory}, asks it as a client, and closes both,
     * wholly even when stopped midway: the interrupt is set aside while they close, so that their pools and writers
     * have ended before the directory is deleted, and restored after.
     *
     * @return what was wrong with an answer, if one was not as published
     */
    private static Optional<String> rehearseIn(Path directory, Clock clock, ThreadGroup group)
            throws IOException, ConfigException, InterruptedException {
        ServerIdentity identity = new GeneratedCertificates(directory.resolve("tls"), List.of(), clock).loadOrCreate();
        String token = HexFormat.of().formatHex(randomBytes());
        SampleOrigin origin = SampleOrigin.start(identity, group);
        MirrorApplication mirror = null;
        try {
            mirror = MirrorApplication.start(config(directory, origin, token), clock);
            return askAsAClient(mirror, token);
        } finally {
            boolean interrupted = Thread.interrupted();
            try {
                if (mirror != null) {
                    mirror.close();
                }
                origin.close();
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Deletes what earlier rehearsals left in the temporary directory when their process ended before they did (a
     * mirror stopped within its first seconds, then halted): those older than {@link #ABANDONED_AFTER}, which no
     * rehearsal takes, so never another running instance's.
     */
    static void removeAbandoned(Clock clock) {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        try (var found = Files.newDirectoryStream(temporary, PREFIX + "*")) {
            for (Path left : found) {
                try {
                    if (Files.isDirectory(left, LinkOption.NOFOLLOW_LINKS)
                            && Files.getLastModifiedTime(left, LinkOption.NOFOLLOW_LINKS)
                                    .toInstant()
                                    .isBefore(clock.instant().minus(ABANDONED_AFTER))) {
                        FetchedSource.deleteTree(left);
                    }
                } catch (IOException | UncheckedIOException e) {
                    // Another user's, or being deleted by another instance: left as it is.
                }
            }
        } catch (IOException e) {
            // No temporary directory to read: creating the rehearsal's own fails next and says so.
        }
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /**
     * Asks for the archive first (the whole cold path), then for the two documents a client asks for before it.
     *
     * @return what was wrong with the first answer that was not as published, if one was not
     */
    private static Optional<String> askAsAClient(MirrorApplication mirror, String token)
            throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(
                        TrustedCertificates.sslContext(mirror.generatedCaFile().orElseThrow()))
                .connectTimeout(ANSWER_TIMEOUT)
                .build();
        String provider = "https://127.0.0.1:" + mirror.port() + "/providers/" + HOST + "/"
                + SampleRelease.ADDRESS.namespace() + "/" + SampleRelease.ADDRESS.type() + "/";
        for (String path : List.of(SampleRelease.ARCHIVE, "index.json", SampleRelease.VERSION + ".json")) {
            HttpResponse<byte[]> answer = client.send(request(provider + path, token), body());
            if (answer.statusCode() != 200) {
                String text = new String(answer.body(), StandardCharsets.UTF_8);
                return Optional.of(path + " was answered " + answer.statusCode() + " "
                        + text.substring(0, Math.min(text.length(), 300)));
            }
            if (path.equals(SampleRelease.ARCHIVE) && !Arrays.equals(answer.body(), SampleRelease.archive())) {
                return Optional.of(path + " was answered with other bytes than published");
            }
        }
        return Optional.empty();
    }

    private static HttpRequest request(String url, String token) {
        return HttpRequest.newBuilder(URI.create(url))
                .timeout(ANSWER_TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .build();
    }

    private static HttpResponse.BodyHandler<byte[]> body() {
        return HttpResponse.BodyHandlers.ofByteArray();
    }

    /**
     * The rehearsal mirror's configuration: everything in {@code directory}, listening on 127.0.0.1 only, knowing
     * the sample origin as {@link #HOST} (trusted by its certificate alone), open to the rehearsal's token for that
     * host only, and rehearsing and discovering nothing itself.
     */
    static MirrorConfig config(Path directory, SampleOrigin origin, String token) throws ConfigException {
        ObjectNode config = JSON.createObjectNode();
        ObjectNode server = config.putObject("server");
        server.put("host", "127.0.0.1").put("port", 0);
        server.putObject("generatedTls")
                .put("directory", directory.resolve("tls").toString());
        config.putObject("cache")
                .put("directory", directory.resolve("cache").toString())
                .put("minFreeSpace", "1MB");
        ObjectNode upstream = config.putObject("upstream");
        upstream.put(
                        "trustedCertificates",
                        directory.resolve("tls").resolve("ca.pem").toString())
                .put("discoverAtStartup", false)
                .put("rehearseAtStartup", false)
                // One attempt, each answer within the rehearsal's own bound.
                .put("maxAttempts", 1)
                .put("requestTimeout", ORIGIN_TIMEOUT.toSeconds() + "s")
                .put("readTimeout", ORIGIN_TIMEOUT.toSeconds() + "s")
                .put("connectTimeout", ORIGIN_TIMEOUT.toSeconds() + "s");
        // Never through an egress proxy of the environment (HTTPS_PROXY), which loopback would otherwise go to.
        upstream.putObject("proxy").set("noProxy", JSON.valueToTree(List.of("127.0.0.1")));
        // The sample provider alone, and no module.
        ObjectNode policy = config.putObject("policy");
        policy.set("allow", JSON.valueToTree(List.of(Map.of("provider", SampleRelease.ADDRESS.toString()))));
        policy.putObject("modules").set("allow", JSON.valueToTree(List.of(Map.of("module", HOST + "/none/none/none"))));
        upstream.putObject("hosts")
                .set(
                        HOST,
                        JSON.valueToTree(
                                Map.of("discoveryUrl", origin.discoveryUrl().toString())));
        config.putObject("auth")
                .set(
                        "clients",
                        JSON.valueToTree(List.of(Map.of(
                                "name", "rehearsal", "token", TokenHashes.hash(token), "hosts", List.of(HOST)))));
        return new ConfigLoader(Map.of()).loadText(config.toString());
    }
}
