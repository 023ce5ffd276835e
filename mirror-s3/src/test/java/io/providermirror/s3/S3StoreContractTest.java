package io.providermirror.s3;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileBlobStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract on a real S3 API (S3Proxy on loopback): {@link S3BlobStore} and {@link S3DocumentStore}. Each
 * test has its own key prefix; every {@link #blobStore} is a new instance with an empty local tier, so reads after a
 * reopen come from the bucket.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class S3StoreContractTest extends StoreContractTest {

    private final S3Fixture fixture = new S3Fixture();

    @BeforeAll
    void startS3() throws IOException {
        fixture.start();
    }

    @AfterAll
    void stopS3() throws IOException {
        fixture.close();
    }

    @BeforeEach
    void freshPrefix() {
        fixture.newPrefix();
    }

    @Override
    BlobStore blobStore(long maxBytes) throws IOException {
        return new S3BlobStore(
                fixture.bucket(), new FileBlobStore(fixture.newTier(), clock), maxBytes, S3Fixture.PART_BYTES, clock);
    }

    @Override
    DocumentStore documentStore() {
        return new S3DocumentStore(fixture.bucket(), clock);
    }

    @Override
    void alter(CacheKey key, byte[] content) throws IOException {
        // in place: the backend keeps an object's metadata beside its file, which stays as the store wrote it
        Files.write(
                fixture.objectFile(fixture.bucket().blobObject(key)),
                content,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    @Override
    long temporaryObjects() throws IOException {
        return fixture.objects(fixture.bucket().temporaryPrefix()).size();
    }
}
