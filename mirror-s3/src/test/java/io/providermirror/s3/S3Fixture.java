package io.providermirror.s3;

import io.providermirror.testkit.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.model.S3Object;

/** S3Proxy on loopback with one bucket, a fresh key prefix per test, and fresh local tiers: for the S3 tests. */
final class S3Fixture implements AutoCloseable {

    static final String BUCKET = "mirror";
    static final int PART_BYTES = 5 * 1024 * 1024;

    private final AtomicInteger tiers = new AtomicInteger();
    private final RecordingListener listener = new RecordingListener();
    private Path root;
    private S3ProxyServer server;
    private S3Settings settings;
    private S3Bucket bucket;

    void start() throws IOException {
        root = Files.createTempDirectory("s3-fixture");
        server = S3ProxyServer.start(root.resolve("s3proxy"));
        server.createBucket(BUCKET);
        newPrefix();
    }

    /** A fresh prefix for the next test, and a bucket (client) on it. */
    void newPrefix() {
        if (bucket != null) {
            bucket.close();
        }
        settings = new S3Settings(
                Optional.of(server.endpoint()), BUCKET, "us-east-1", true, "t" + UUID.randomUUID() + "/");
        bucket = new S3Bucket(
                S3Bucket.client(
                        settings,
                        StaticCredentialsProvider.create(
                                AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))),
                settings,
                listener);
    }

    S3Bucket bucket() {
        return bucket;
    }

    S3Settings settings() {
        return settings;
    }

    S3ProxyServer server() {
        return server;
    }

    RecordingListener listener() {
        return listener;
    }

    /** An empty directory for a local tier. */
    Path newTier() throws IOException {
        return Files.createDirectories(root.resolve("tier-" + tiers.incrementAndGet()));
    }

    Path objectFile(String object) {
        return server.objectFile(BUCKET, object);
    }

    List<S3Object> objects(String prefix) {
        return bucket.client().listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
                .toList();
    }

    @Override
    public void close() throws IOException {
        if (bucket != null) {
            bucket.close();
        }
        if (server != null) {
            server.close();
        }
        if (root != null) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
