package io.providermirror.server.scenario;

import io.providermirror.testkit.FakeOrigin;
import io.providermirror.testkit.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A bucket on a real S3 API server (S3Proxy on loopback) for a test class's mirrors, and their configuration on it
 * ({@code @RegisterExtension static final MirrorBucket bucket = MirrorBucket.named("mirror");}). S3Proxy starts
 * before the class's own set-up and stops after its tear-down; while it runs, the SDK's default credential chain
 * finds S3Proxy's keys in the system properties it reads first (in production: the environment, a profile, web
 * identity).
 */
final class MirrorBucket implements BeforeAllCallback, AfterAllCallback {

    private final String name;
    private final S3ProxyServer.Release release;
    private Path root;
    private S3ProxyServer server;

    private MirrorBucket(String name, S3ProxyServer.Release release) {
        this.name = name;
        this.release = release;
    }

    /** A bucket called {@code name} on the S3Proxy release that answers conditional writes as S3 does. */
    static MirrorBucket named(String name) {
        return new MirrorBucket(name, S3ProxyServer.Release.CURRENT);
    }

    /** A bucket called {@code name} on a store that overwrites on a conditional write. */
    static MirrorBucket withoutConditionalWrites(String name) {
        return new MirrorBucket(name, S3ProxyServer.Release.WITHOUT_CONDITIONAL_WRITES);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        root = Files.createTempDirectory("s3proxy");
        server = S3ProxyServer.start(root, release);
        server.createBucket(name);
        System.setProperty("aws.accessKeyId", S3ProxyServer.ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        server.close();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** The S3 API server, to stop and start it again or to look at the files it keeps. */
    S3ProxyServer server() {
        return server;
    }

    /** The bucket's name. */
    String name() {
        return name;
    }

    /**
     * A mirror for {@code origin} caching in {@code cache} and in this bucket under {@code prefix}; {@code more} are
     * further {@code cache.s3} settings, as key, value, key, value.
     */
    MirrorFixture.Builder mirror(Path cache, FakeOrigin origin, String prefix, Object... more) {
        Map<String, Object> s3 = new LinkedHashMap<>();
        s3.put("endpoint", server.endpoint().toString());
        s3.put("bucket", name);
        s3.put("pathStyleAccess", true);
        s3.put("prefix", prefix);
        for (int i = 0; i < more.length; i += 2) {
            s3.put((String) more[i], more[i + 1]);
        }
        return MirrorFixture.builder(cache, origin).set("cache.s3", s3);
    }
}
