package io.providermirror.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real S3 API server on loopback for the tests: S3Proxy's jar-with-dependencies run as a subprocess (so its
 * libraries stay off the test class path) with the {@code filesystem-nio2} backend over a directory, where each
 * bucket is a directory and each object a file beneath it. {@link #stop()} and {@link #start()} again on the same
 * port make "the store restarted mid-run"; {@link #objectFile} lets a test alter an object behind a store's back.
 *
 * <p>The jar is found at the system property {@code s3proxy.jar}, else at {@code target/s3proxy/s3proxy.jar} of
 * the module under test, where the parent pom's {@code copy-s3proxy} execution of the maven-dependency-plugin
 * puts it (a module whose tests use this declares that plugin). {@link Release#WITHOUT_CONDITIONAL_WRITES} runs
 * S3Proxy 2.6.0 instead, from {@code s3proxy-2.6.0.jar} beside it (or the system property
 * {@code s3proxy.jar.2.6.0}).
 */
public final class S3ProxyServer implements AutoCloseable {

    /** The access key S3Proxy accepts. */
    public static final String ACCESS_KEY = "local-identity";

    /** The secret key S3Proxy accepts. */
    public static final String SECRET_KEY = "local-credential";

    private static final Pattern STARTED = Pattern.compile("Started ServerConnector@.*\\{127\\.0\\.0\\.1:(\\d+)}");
    private static final long START_SECONDS = 60;

    /** Which S3Proxy runs, and over which of its backends. */
    public enum Release {
        /** The release the build pins, with its {@code filesystem-nio2} backend: conditional writes as S3 has them. */
        CURRENT("s3proxy.jar", "s3proxy.jar", "filesystem-nio2"),
        /**
         * S3Proxy 2.6.0 with its old {@code filesystem} backend, which ignores {@code If-None-Match} and
         * {@code If-Match} on a PUT and overwrites (measured): a store without conditional writes.
         */
        WITHOUT_CONDITIONAL_WRITES("s3proxy.jar.2.6.0", "s3proxy-2.6.0.jar", "filesystem");

        private final String property;
        private final String fileName;
        private final String provider;

        Release(String property, String fileName, String provider) {
            this.property = property;
            this.fileName = fileName;
            this.provider = provider;
        }
    }

    private final Path root;
    private final Path data;
    private final Release release;
    private final List<String> output = new ArrayList<>();
    private Process process;
    private int port;

    private S3ProxyServer(Path root, Release release) {
        this.root = root;
        this.data = root.resolve("data");
        this.release = release;
    }

    /** Starts S3Proxy keeping its buckets beneath {@code root}/data, on a free loopback port. */
    public static S3ProxyServer start(Path root) {
        return start(root, Release.CURRENT);
    }

    /** Starts {@code release} of S3Proxy keeping its buckets beneath {@code root}/data, on a free loopback port. */
    public static S3ProxyServer start(Path root, Release release) {
        S3ProxyServer server = new S3ProxyServer(root, release);
        server.start();
        return server;
    }

    /** Starts the server (again, on the port it had, after {@link #stop()}); waits until it listens. */
    public synchronized void start() {
        if (process != null) {
            throw new IllegalStateException("S3Proxy is already running");
        }
        try {
            Files.createDirectories(data);
            Path properties = root.resolve("s3proxy.properties");
            Files.writeString(
                    properties,
                    String.join(
                            "\n",
                            "s3proxy.endpoint=http://127.0.0.1:" + port,
                            "s3proxy.authorization=aws-v2-or-v4",
                            "s3proxy.identity=" + ACCESS_KEY,
                            "s3proxy.credential=" + SECRET_KEY,
                            "jclouds.provider=" + release.provider,
                            "jclouds.filesystem.basedir=" + data.toAbsolutePath(),
                            ""));
            String java =
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder builder = new ProcessBuilder(
                            java, "-Xmx256m", "-jar", jar(release).toString(), "--properties", properties.toString())
                    .redirectErrorStream(true);
            builder.environment().put("LOG_LEVEL", "info");
            process = builder.start();
            port = awaitPort(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start S3Proxy", e);
        }
    }

    private int awaitPort(Process started) {
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader lines = new BufferedReader(
                            new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = lines.readLine()) != null) {
                            synchronized (output) {
                                output.add(line);
                            }
                            Matcher matcher = STARTED.matcher(line);
                            if (matcher.find()) {
                                listening.complete(Integer.parseInt(matcher.group(1)));
                            }
                        }
                    } catch (IOException e) {
                        // the process ended; the future below says so
                    }
                    listening.completeExceptionally(new IllegalStateException("S3Proxy exited"));
                },
                "s3proxy-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return listening.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            started.destroyForcibly();
            throw new IllegalStateException("S3Proxy did not start: " + recentOutput(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.destroyForcibly();
            throw new IllegalStateException("interrupted while starting S3Proxy", e);
        }
    }

    private String recentOutput() {
        synchronized (output) {
            return String.join("\n", output.subList(Math.max(0, output.size() - 30), output.size()));
        }
    }

    private static Path jar(Release release) {
        String configured = System.getProperty(release.property);
        Path jar = configured != null ? Paths.get(configured) : Paths.get("target", "s3proxy", release.fileName);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("S3Proxy's jar is not at " + jar.toAbsolutePath()
                    + ": declare the maven-dependency-plugin (execution copy-s3proxy) in this module's pom");
        }
        return jar;
    }

    /** Stops the server (its buckets stay on disk); {@link #start()} brings it back on the same port. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    /** The S3 endpoint, {@code http://127.0.0.1:<port>}. */
    public synchronized URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Creates an empty bucket (a directory of the filesystem backend) and returns its name. */
    public String createBucket(String name) {
        try {
            Files.createDirectories(data.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return name;
    }

    /** The file that holds object {@code key} of {@code bucket}: a test may alter it behind a store's back. */
    public Path objectFile(String bucket, String key) {
        return data.resolve(bucket).resolve(key);
    }

    @Override
    public void close() {
        stop();
    }
}
