package io.providermirror.s3;

import io.providermirror.cache.BlobStore;
import io.providermirror.cache.CacheKey;
import io.providermirror.cache.DocumentStore;
import io.providermirror.cache.FileBlobStore;
import io.providermirror.cache.FileDocumentStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on the local disk: {@link FileBlobStore} and {@link FileDocumentStore}. */
final class FileStoreContractTest extends StoreContractTest {

    @TempDir
    Path root;

    @Override
    BlobStore blobStore(long maxBytes) throws IOException {
        return new FileBlobStore(root.resolve("archives"), clock, maxBytes);
    }

    @Override
    DocumentStore documentStore() throws IOException {
        return new FileDocumentStore(root.resolve("documents"), clock);
    }

    @Override
    void alter(CacheKey key, byte[] content) throws IOException {
        Files.write(new FileBlobStore(root.resolve("archives"), clock).file(key), content);
    }

    @Override
    long temporaryObjects() throws IOException {
        return count(root.resolve("archives/tmp")) + count(root.resolve("documents/tmp"));
    }

    private static long count(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.count();
        }
    }
}
